import Foundation

/// What to do with a finished request.
public struct H2Action: Sendable {
    public var response: H2Response?
    /// Hold the response this long.
    public var delayMilliseconds = 0
    /// Drop the connection instead of answering.
    public var drop = false
    /// The answer is one the handler counts: it is reported as sent (``H2RequestHandler/answerSent()``)
    /// or lost with its connection (``H2RequestHandler/answersLost(_:)``).
    public var counted = false
    /// GOAWAY once the connection has carried this many streams.
    public var goawayAfter: Int?

    public init(response: H2Response? = nil, delayMilliseconds: Int = 0, drop: Bool = false, counted: Bool = false, goawayAfter: Int? = nil) {
        self.response = response
        self.delayMilliseconds = delayMilliseconds
        self.drop = drop
        self.counted = counted
        self.goawayAfter = goawayAfter
    }
}

/// What a connection's requests share (an APNs connection's accepted provider token, say), with
/// the verified client certificate's name when TLS asked for one.
public protocol H2ConnectionState {
    init()
    var clientCertificate: String? { get set }
}

/// The application behind an ``H2Server``: the server knows HTTP/2, the handler what to answer.
/// Every call comes on the server's loop thread.
public protocol H2RequestHandler: AnyObject, Sendable {
    associatedtype ConnectionState: H2ConnectionState
    /// A complete request; `number` counts streams on its connection.
    func handle(_ request: H2Request, state: inout ConnectionState, number: Int) -> H2Action
    /// SETTINGS_MAX_CONCURRENT_STREAMS before and after a connection's first 200.
    var initialStreamLimit: UInt32 { get }
    var raisedStreamLimit: UInt32 { get }
    func connectionOpened()
    func connectionClosed()
    /// A PING (not an ACK) came; nghttp2 answers it.
    func pingReceived()
    /// A counted answer left for the client (its bytes reached the socket).
    func answerSent()
    /// A connection ended with counted answers never sent: the client cannot know what happened.
    func answersLost(_ count: Int)
}
