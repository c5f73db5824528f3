import Foundation
import SoarCore
import SoarHTTP
import SoarSchema
import SoarStore

/// `/rest/v1/rpc/{function}` (supabase's `.rpc()`): POST with the arguments as a JSON object, or
/// GET with them in the query string.
extension RestService {
    func call(_ exchange: inout Exchange) throws(ServerError) -> HTTPResponse {
        let name = exchange.parameters["function"] ?? ""
        _ = try Representation.answer(accepting: exchange.header("accept"))
        var given: [String: JSONValue] = [:]
        var modifiers = exchange.request.query.filter { $0.name != "apikey" }
        if exchange.request.method == "POST" {
            guard try Representation.body(exchange.header("content-type")) == .json else {
                throw .rest(415, "PGRST107", "Content-Type not acceptable: \(exchange.header("content-type") ?? "")")
            }
            switch try exchange.json({ .rest(400, "PGRST102", "Empty or invalid json", details: $0) }) {
            case .object(let object): given = object
            default: throw .rest(400, "PGRST102", "Empty or invalid json", details: "the arguments are one JSON object")
            }
        }
        guard let function = store.functions[name] else { throw Self.notFound(name, Array(given.keys)) }
        if exchange.request.method != "POST" {
            // GET: the function's arguments by name; the other parameters act on its rows.
            let argumentNames = Set(function.arguments.map(\.name))
            for (key, value) in modifiers where argumentNames.contains(key) { given[key] = .string(value) }
            modifiers.removeAll { argumentNames.contains($0.name) }
        }
        // PostgREST finds a function by its argument names: every one given must be one of them,
        // and every one without a default must be given.
        let known = Set(function.arguments.map(\.name))
        guard given.keys.allSatisfy(known.contains), function.arguments.allSatisfy({ $0.hasDefault || given[$0.name] != nil }) else {
            throw Self.notFound(name, Array(given.keys))
        }
        var values: [SQLValue?] = []
        for argument in function.arguments {
            guard let value = given[argument.name] else {
                values.append(nil)
                continue
            }
            let column = Column(Attribute(name: argument.name, type: argument.type), relation: name, enums: [:])
            do { values.append(try column.storable(value)) } catch { throw .store(error, role: exchange.access.role) }
        }
        var query = RowQuery()
        if !modifiers.isEmpty {
            guard function.returnsRows else {
                throw .rest(400, "PGRST100", "failed to parse the query string", details: "\(function.signature) returns no rows to select, filter or order")
            }
            do throws(QueryError) { query = try QueryParser(table: Table(function.result)).parse(modifiers) } catch {
                throw Self.failure(error, exchange.access.role)
            }
        }
        let answer: JSONValue?
        do { answer = try store.call(function, values, query: query, as: exchange.access) } catch { throw .store(error, role: exchange.access.role) }
        guard let answer else { return HTTPResponse(status: 204) }
        return HTTPResponse(status: 200, headers: [("content-type", "application/json; charset=utf-8")], body: Data(answer.jsonText.utf8))
    }

    /// PGRST202, naming the function with the arguments asked for, as PostgREST does.
    static func notFound(_ name: String, _ arguments: [String]) -> ServerError {
        let listed = arguments.sorted().joined(separator: ", ")
        return .rest(
            404, "PGRST202", "Could not find the function public.\(name)(\(listed)) in the schema cache",
            hint: "If a new function was created in the database with this name and parameters, try reloading the schema cache.")
    }
}
