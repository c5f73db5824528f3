import Foundation
import SoarAPNs
import Synchronization

/// `soar bench apns`: the APNsClient library's own steady rate, without the CLI around it.
///
/// `soar push send` measures a whole run (start, read tokens, sign, print a line per token); this
/// warms the connections first, then times the library alone, counting results instead of printing.
struct BenchAPNsCommand: Command {
    static let name = "bench apns"
    static let summary = "Measure the APNsClient library's steady sending rate (warm connections, no per-result output)."
    static let options = PushSendCommand.options.filter { $0.label.hasPrefix("--json") == false } + [
        Option("--warmup", value: "N", help: "Notifications sent first, untimed, to open and warm the connections (default 1000)."),
        Option("--json", help: "One JSON object: sent, failed, seconds, per_second."),
    ]
    static let discussion = """
        Takes the options of `soar push send`; the tokens after the first --warmup are timed.
        Example: soar bench apns --apns-url https://127.0.0.1:2197 --ca-file ca.pem ... --tokens-file tokens.txt --title a --body b
        """

    let send: PushSendCommand
    let warmup: Int
    let json: Bool

    init(_ arguments: Arguments) throws(CommandError) {
        send = try PushSendCommand(arguments)
        warmup = try arguments.integer("--warmup", in: 0...1_000_000) ?? 1000
        json = arguments.flag("--json")
    }

    func validate() throws(CommandError) {
        try send.validate()
        guard send.tokens.count > warmup else { throw .usage("give more tokens than --warmup (\(warmup)): \(send.tokens.count) given") }
    }

    func run(_ console: Console) async throws(CommandError) {
        let client = try send.makeClient()
        defer { client.shutdown() }
        let failed = Atomic(0)
        let count: @Sendable (APNsResult) -> Void = { if !$0.outcome.isDelivered { failed.add(1, ordering: .relaxed) } }
        await client.send(send.notifications(send.tokens.prefix(warmup)), onResult: count)
        let warmFailures = failed.load(ordering: .relaxed)
        if warmFailures == warmup, warmup > 0 { throw .unreachable("every warm-up notification failed; is \(client.configuration.environment.baseURL) up?") }
        failed.store(0, ordering: .relaxed)
        let timed = send.tokens.count - warmup
        let clock = ContinuousClock()
        let start = clock.now
        await client.send(send.notifications(send.tokens.dropFirst(warmup)), onResult: count)
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let failures = failed.load(ordering: .relaxed)
        let rate = Double(timed) / max(seconds, 1e-9)
        if json {
            console.print(#"{"sent":\#(timed),"failed":\#(failures),"seconds":\#(seconds),"per_second":\#(Int(rate))}"#)
        } else {
            console.print(String(format: "APNsClient steady state: %d notifications in %.2f s = %.0f/s (%d connections x %d streams, warm; results counted, not printed); %d failed",
                                 timed, seconds, rate, send.connections, send.streams, failures))
        }
        if failures > 0 { throw .failure("\(failures) of \(timed) notification(s) failed") }
    }
}
