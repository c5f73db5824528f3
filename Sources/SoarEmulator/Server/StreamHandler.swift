import Foundation
import SoarHTTP
import SoarHTTP2

/// What to do with a finished request.
struct StreamAction {
    var response: HTTPResponse?
    /// Hold the response this long.
    var delayMilliseconds = 0
    /// Drop the connection instead of answering.
    var drop = false
    /// The request was recorded as a delivery: its answer is counted as sent or lost.
    var recorded = false
    /// GOAWAY once the connection has carried this many streams (the fault in force for this request).
    var goawayAfter: Int?
}

/// The emulator's logic as the HTTP/2 layer calls it; the layer knows nothing of APNs.
protocol StreamHandler: AnyObject, Sendable {
    /// Called on the loop thread for each complete request; `number` counts streams on the connection.
    func handle(_ request: H2Request, auth: inout ConnectionAuth, number: Int) -> StreamAction
    /// SETTINGS_MAX_CONCURRENT_STREAMS before and after a connection's first 200.
    var initialStreamLimit: UInt32 { get }
    var raisedStreamLimit: UInt32 { get }
    func connectionOpened()
    func connectionClosed()
    /// A PING (not an ACK) came; nghttp2 answers it.
    func pingReceived()
    /// The answer to a recorded delivery left for the client.
    func deliveryAnswered()
    /// A connection ended with answers to recorded deliveries never sent: the client cannot know.
    func deliveryAnswersLost(_ count: Int)
}
