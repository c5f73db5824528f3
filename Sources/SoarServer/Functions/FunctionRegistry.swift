import SoarCore
import SoarHTTP
import SoarStore

/// Edge-function look-alikes at `/functions/v1/{name}`: a name to a handler, registered by the
/// services that provide them (push registers `send-test-push` and `send-push`).
public struct FunctionRegistry: Sendable {
    /// A function call: the body, who calls (verified JWT), and the request id for logs.
    public struct Call: Sendable {
        public let body: JSONValue
        public let access: Access
        public let requestID: String
        public let method: String
    }

    public typealias Function = @Sendable (Call) throws(ServerError) -> HTTPResponse

    private(set) var functions: [String: Function] = [:]

    public init() {}

    public mutating func register(_ name: String, _ function: @escaping Function) {
        functions[name] = function
    }

    public var names: [String] { functions.keys.sorted() }

    func invoke(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        let name = exchange.parameters["name"] ?? ""
        guard let function = functions[name] else { throw .gateway(404, "Requested function was not found", code: "NOT_FOUND") }
        let body = try exchange.json { .gateway(400, "The request body is not JSON: \($0)", code: "BAD_REQUEST") }
        return try function(Call(body: body, access: exchange.access, requestID: exchange.requestID, method: exchange.request.method))
    }
}
