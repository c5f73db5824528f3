import Foundation
import Observation
import SoarCore

/// The Notifications screen: permission, the token, the inbox and the test-push button.
@MainActor @Observable
public final class NotificationsViewModel {
    public let controller: NotificationsController
    /// The last test push's outcome.
    public private(set) var testPush: UiState<PushTestResult> = .idle
    @ObservationIgnored private let sender: any PushTestSending

    public init(controller: NotificationsController, sender: any PushTestSending) {
        self.controller = controller
        self.sender = sender
    }

    /// The test button is enabled only with a device token (never on the Simulator) and while
    /// no test is on its way.
    public var canSendTestPush: Bool { controller.pushToken != nil && !testPush.isLoading }

    public func sendTestPush(_ request: PushTestRequest = PushTestRequest()) async {
        guard canSendTestPush else { return }
        testPush = .loading
        testPush = UiState(await sender.send(request))
    }
}
