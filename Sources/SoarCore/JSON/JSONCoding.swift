import Foundation

/// The one JSON encoder and decoder configuration Soar uses everywhere.
///
/// Output is compact (APNs counts bytes) with sorted keys (stable for tests and logs), and dates
/// travel as ISO 8601 with fractional seconds, the shape Postgres and PostgREST emit.
public enum JSONCoding {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.format(date))
        }
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "Expected an ISO 8601 timestamp, got \"\(text)\"")
            }
            return date
        }
        return decoder
    }

    /// Encodes a value compactly.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        try encoder().encode(value)
    }

    /// Decodes a value, with dates read by ``Timestamp/parse(_:)``.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decoder().decode(type, from: data)
    }
}
