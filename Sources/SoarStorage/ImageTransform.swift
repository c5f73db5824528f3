import SoarCore

/// What `/render/image/...` asks of an image, as Supabase's query names it: `width`, `height`,
/// `resize` (cover, contain, fill), `quality` (20 to 100) and `format` (origin, webp, jpeg, png).
public struct ImageTransform: Sendable, Equatable {
    public enum Resize: String, Sendable { case cover, contain, fill }
    public enum Format: String, Sendable { case origin, webp, jpeg, png }

    public var width: Int?
    public var height: Int?
    public var resize = Resize.cover
    public var quality = 80
    public var format = Format.origin

    public init(width: Int? = nil, height: Int? = nil, resize: Resize = .cover, quality: Int = 80, format: Format = .origin) {
        self.width = width
        self.height = height
        self.resize = resize
        self.quality = quality
        self.format = format
    }

    /// The largest side a render has.
    public static let maxSide = 2500

    /// From a query (or a signed URL's `transformations`), checked.
    ///
    /// - Throws: ``StorageError`` InvalidRequest naming the bad parameter.
    public init(query: (String) -> String?) throws(StorageError) {
        func side(_ name: String) throws(StorageError) -> Int? {
            guard let text = query(name) else { return nil }
            guard let value = Int(text), value >= 0 else { throw .invalidRequest("querystring/\(name) must be integer >= 0") }
            return value == 0 ? nil : min(value, Self.maxSide)
        }
        width = try side("width")
        height = try side("height")
        if let text = query("resize") {
            guard let resize = Resize(rawValue: text) else { throw .invalidRequest("querystring/resize must be cover, contain or fill") }
            self.resize = resize
        }
        if let text = query("quality") {
            guard let quality = Int(text), (20...100).contains(quality) else { throw .invalidRequest("querystring/quality must be between 20 and 100") }
            self.quality = quality
        }
        if let text = query("format") {
            guard let format = Format(rawValue: text == "jpg" ? "jpeg" : text) else {
                throw .invalidRequest("querystring/format must be origin, webp, jpeg or png")
            }
            self.format = format
        }
    }

    /// The transform as a signed URL carries it (`width:128,height:128,resize:cover,...`).
    public var claim: String {
        [width.map { "width:\($0)" }, height.map { "height:\($0)" }, "resize:\(resize.rawValue)", "quality:\(quality)", "format:\(format.rawValue)"]
            .compactMap { $0 }.joined(separator: ",")
    }

    /// Read back from ``claim``.
    public init(claim: String) throws(StorageError) {
        let pairs = Dictionary(claim.split(separator: ",").compactMap { part -> (String, String)? in
            let pair = part.split(separator: ":", maxSplits: 1)
            return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
        }, uniquingKeysWith: { first, _ in first })
        try self.init(query: { pairs[$0] })
    }
}
