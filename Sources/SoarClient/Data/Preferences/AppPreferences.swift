import Foundation
import Observation

/// The app's non-secret settings: theme, language, and the onboarding and consent flags.
///
/// Tokens and sessions never go here; they belong in a ``SecureStore``.
@MainActor @Observable
public final class AppPreferences {
    public enum Theme: String, Sendable, CaseIterable {
        case system, light, dark
    }

    private let store: any PreferencesStore

    public var theme: Theme { didSet { store.set(theme.rawValue, for: Keys.theme) } }
    /// A language code such as `en` or `zh-Hans`; nil follows the system.
    public var language: String? { didSet { store.set(language, for: Keys.language) } }
    public var hasCompletedOnboarding: Bool { didSet { store.set(String(hasCompletedOnboarding), for: Keys.onboarding) } }
    public var analyticsConsent: Bool { didSet { store.set(String(analyticsConsent), for: Keys.consent) } }

    public init(store: any PreferencesStore) {
        self.store = store
        theme = store.string(for: Keys.theme).flatMap(Theme.init(rawValue:)) ?? .system
        language = store.string(for: Keys.language)
        hasCompletedOnboarding = store.string(for: Keys.onboarding) == "true"
        analyticsConsent = store.string(for: Keys.consent) == "true"
    }

    enum Keys {
        static let theme = "soar.theme"
        static let language = "soar.language"
        static let onboarding = "soar.onboarding-completed"
        static let consent = "soar.analytics-consent"
    }
}
