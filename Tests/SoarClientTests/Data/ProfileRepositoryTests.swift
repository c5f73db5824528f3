import Foundation
import SoarClient
import SoarCore
import SoarTesting
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(1))) struct ProfileRepositoryTests {
    final class Recorder: ProfileRemoteDataSourceProtocol {
        let sent = Mutex<[[String: JSONValue]]>([])
        func fetchProfile(id: UUID) async throws(AppError) -> Profile? { nil }
        func upsert(_ columns: [String: JSONValue]) async throws(AppError) -> Profile {
            sent.withLock { $0.append(columns) }
            return Profile(id: UUID(uuidString: columns["id"]?.stringValue ?? "") ?? UUID())
        }
    }

    @Test func oneFieldIsSentWithTheIdAndUpdatedAtOnly() async {
        let recorder = Recorder()
        let user = UUID()
        let repository = ProfileRepository(remote: recorder, now: { Date(timeIntervalSince1970: 1_800_000_000) })
        #expect(await repository.update(.bio, to: "  hi  ", userId: user).value != nil)
        #expect(await repository.update(.location, to: "", userId: user).value != nil)
        #expect(await repository.update(.phone, to: "call me", userId: user).error?.code == .validation)
        let sent = recorder.sent.withLock { $0 }
        #expect(sent.count == 2)
        #expect(Set(sent[0].keys) == ["id", "updated_at", "bio"] && sent[0]["bio"] == .string("hi"))
        #expect(sent[0]["id"] == .string(user.uuidString.lowercased()))
        #expect(sent[1]["location"] == .null, "blank clears the field")
        #expect(await repository.load(userId: user).value == Profile(id: user), "no row yet: an empty profile")
    }

    @Test func partialEditsNeverOverwriteOtherFieldsOnTheServer() async throws {
        let fixture = try ClientFixture()
        let user = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse").user.id
        let repository = ProfileRepository(remote: ProfileRemoteDataSource(client: fixture.client))
        #expect(await repository.update(.fullName, to: "Ada Lovelace", userId: user).value != nil)
        let saved = try #require(await repository.update(.bio, to: "Engines", userId: user).value)
        #expect(saved.fullName == "Ada Lovelace" && saved.bio == "Engines", "the row as it now stands")
        let profile = try #require(await repository.load(userId: user).value)
        #expect(profile.fullName == "Ada Lovelace" && profile.bio == "Engines" && profile.updatedAt != nil)
    }

    @MainActor @Test func theScreenShowsTheSavedRowAndKeepsItWhenAnEditFails() async throws {
        let backend = InMemoryBackend()
        let client = Soar(supabaseURL: backend.url, supabaseKey: "test", store: InMemorySecureStore(), transport: backend)
        let user = try await client.auth.signUp(email: "ada@example.com", password: "correct-horse").user.id
        let model = ProfileViewModel(repository: ProfileRepository(remote: ProfileRemoteDataSource(client: client)), userId: user)
        await model.load()
        #expect(model.state == .data(Profile(id: user)), "no row yet: an empty profile")
        await model.update(.fullName, to: "Ada Lovelace")
        #expect(model.state.value?.fullName == "Ada Lovelace" && model.actionError == nil)
        await model.update(.phone, to: "call me")
        #expect(model.state.value?.fullName == "Ada Lovelace" && model.actionError?.contains("phone number") == true)
    }
}

@MainActor @Suite(.timeLimit(.minutes(1))) struct AppPreferencesTests {
    @Test func settingsSurviveARelaunchInAFile() throws {
        let directory = TemporaryDirectory("soar-preferences")
        let file = URL(fileURLWithPath: directory.path + "/preferences.json")
        let preferences = AppPreferences(store: FilePreferencesStore(file: file))
        #expect(preferences.theme == .system && !preferences.hasCompletedOnboarding)
        preferences.theme = .dark
        preferences.language = "zh-Hans"
        preferences.hasCompletedOnboarding = true
        let relaunched = AppPreferences(store: FilePreferencesStore(file: file))
        #expect(relaunched.theme == .dark && relaunched.language == "zh-Hans" && relaunched.hasCompletedOnboarding)
        #expect(!relaunched.analyticsConsent)
    }
}
