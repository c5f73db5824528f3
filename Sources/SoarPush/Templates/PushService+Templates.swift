import Foundation
import SoarCore
import SoarStore

/// Templates: saved and read by name (service role), and a send-push body naming one turned into
/// the send it stands for before anything else reads it.
extension PushService {
    /// Saves a template, replacing one of that name.
    ///
    /// - Returns: the definition as saved, and whether it is new.
    /// - Throws: ``PushError`` 400 saying what is wrong with it.
    public func saveTemplate(name: String, body: JSONValue) throws(PushError) -> (template: JSONValue, created: Bool) {
        let template = try PushTemplate(name: name, json: body)
        do {
            return (template.json, !(try jobs.saveTemplate(name: name, definition: template.json.jsonText)))
        } catch {
            throw PushError(503, "store_unavailable", error.message)
        }
    }

    public func template(name: String) throws(PushError) -> JSONValue { try stored(name).json }

    /// Every template, by name.
    public func templates() throws(PushError) -> JSONValue {
        do {
            return .array(try jobs.templates().compactMap { try? JSONValue.read(Data($0.utf8)) })
        } catch {
            throw PushError(503, "store_unavailable", error.message)
        }
    }

    public func deleteTemplate(name: String) throws(PushError) -> JSONValue {
        let deleted: Bool
        do { deleted = try jobs.deleteTemplate(name: name) } catch { throw PushError(503, "store_unavailable", error.message) }
        guard deleted else { throw Self.unknownTemplate(name) }
        return ["name": .string(name), "deleted": true]
    }

    /// `{"template": "welcome", "data": {...}}` as the send it stands for: the default locale's
    /// alert as `payload`, the others as `localized_alerts`. Any other body is returned as it is.
    func expandingTemplate(_ body: JSONValue) throws(PushError) -> JSONValue {
        guard var fields = body.objectValue, let name = fields["template"], name != .null else { return body }
        guard let name = name.stringValue else { throw .invalid("template must be a template's name") }
        if let clash = ["title", "body", "payload", "localized_alerts"].first(where: { fields[$0] != nil && fields[$0] != .null }) {
            throw .invalid("give a template or \(clash), not both: the template is the notification's text")
        }
        guard fields["data"] == nil || fields["data"] == .null || fields["data"]?.objectValue != nil else {
            throw .invalid("data must be an object of the template's variables, e.g. {\"name\": \"Ada\"}")
        }
        let template = try stored(name)
        let alerts = try template.alerts(fields["data"]?.objectValue ?? [:])
        fields["template"] = nil
        fields["data"] = nil
        fields["payload"] = ["aps": ["alert": alerts[template.defaultLocale] ?? .null]]
        let others = alerts.filter { $0.key != template.defaultLocale }
        if !others.isEmpty { fields["localized_alerts"] = .object(others) }
        return .object(fields)
    }

    private func stored(_ name: String) throws(PushError) -> PushTemplate {
        let text: String?
        do { text = try jobs.template(name: name) } catch { throw PushError(503, "store_unavailable", error.message) }
        guard let text, let json = try? JSONValue.read(Data(text.utf8)) else { throw Self.unknownTemplate(name) }
        return try PushTemplate(name: name, json: json)
    }

    private static func unknownTemplate(_ name: String) -> PushError {
        PushError(404, "unknown_template", "no template is named \"\(name.prefix(70))\" (PUT /functions/v1/templates/\(name.prefix(70)) makes one)")
    }
}
