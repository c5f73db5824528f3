/// A one-line progress bar on standard error, drawn only on a terminal and for large batches.
final class Progress {
    let total: Int
    let console: Console
    let visible: Bool
    private var done = 0
    private var drawnAt = -1

    init(total: Int, console: Console, threshold: Int = 100) {
        self.total = total
        self.console = console
        visible = console.errorIsTerminal && total >= threshold
    }

    func advance() {
        done += 1
        guard visible, done * 50 / total != drawnAt else { return }
        drawnAt = done * 50 / total
        console.err("\r[" + String(repeating: "#", count: drawnAt) + String(repeating: " ", count: 50 - drawnAt) + "] \(done)/\(total)")
    }

    /// Erases the bar so a result line can be printed.
    func clear() {
        if visible && drawnAt >= 0 { console.err("\r\u{1B}[K") }
        drawnAt = -1
    }

    func finish() {
        if visible { console.err("\r\u{1B}[K") }
    }
}
