import Foundation
import Testing

import SoarCore
@testable import SoarClient

@Suite(.timeLimit(.minutes(5))) struct ModelTests {
    @Test func todoFromPostgREST() throws {
        let json = """
            [{"id":"6f1c5e1e-98b4-4c43-9a1a-2b5f1f0a8d11","user_id":"0b7c2a52-1111-4d7e-8c3e-3f6a1b2c3d4e",\
            "title":"Buy milk","completed":false,"sort_order":2,"created_at":"2024-05-01T12:30:00.123456+00:00",\
            "updated_at":"2024-05-01T12:30:00Z"}]
            """
        let todo = try #require(try JSONCoding.decode([Todo].self, from: Data(json.utf8)).first)
        #expect(todo.title == "Buy milk" && todo.sortOrder == 2 && !todo.completed)
        #expect(todo.createdAt.map { abs($0.timeIntervalSince1970 - 1_714_566_600.123456) < 0.0001 } == true)
        #expect(todo.updatedAt == Date(timeIntervalSince1970: 1_714_566_600))
    }

    @Test func encodesSnakeCase() throws {
        let todo = Todo(id: UUID(), userId: UUID(), title: "x", sortOrder: 1, createdAt: Date(timeIntervalSince1970: 0))
        let object = try JSONDecoder().decode([String: JSONValue].self, from: JSONCoding.encode(todo))
        #expect(Set(object.keys) == ["id", "user_id", "title", "completed", "sort_order", "created_at"])
        #expect(object["created_at"] == "1970-01-01T00:00:00.000Z")
        let back = try JSONCoding.decode(Todo.self, from: JSONCoding.encode(todo))
        #expect(back == todo)
    }

    @Test func profileFieldsMayBeNull() throws {
        let json = #"{"id":"0b7c2a52-1111-4d7e-8c3e-3f6a1b2c3d4e","full_name":null,"bio":"hi","avatar_url":"https://x/a.png"}"#
        let profile = try JSONCoding.decode(Profile.self, from: Data(json.utf8))
        #expect(profile.fullName == nil && profile.bio == "hi" && profile.avatarURL == "https://x/a.png" && profile.phone == nil)
        #expect(Profile.Field.allCases.map(\.rawValue) == ["full_name", "bio", "phone", "location", "avatar_url"])
    }

    @Test func deviceTokenKeyedByUserAndToken() throws {
        let user = UUID(uuidString: "0B7C2A52-1111-4D7E-8C3E-3F6A1B2C3D4E")!
        let row = DeviceToken(userId: user, token: "abcd")
        #expect(row.id == "0b7c2a52-1111-4d7e-8c3e-3f6a1b2c3d4e:abcd")
        let object = try JSONDecoder().decode([String: JSONValue].self, from: JSONCoding.encode(row))
        #expect(object == ["user_id": "0B7C2A52-1111-4D7E-8C3E-3F6A1B2C3D4E", "token": "abcd", "platform": "ios"])
    }

    @Test func badTimestampIsAClearError() {
        let json = #"{"id":"0b7c2a52-1111-4d7e-8c3e-3f6a1b2c3d4e","created_at":"last tuesday"}"#
        #expect(throws: DecodingError.self) { try JSONCoding.decode(Profile.self, from: Data(json.utf8)) }
    }
}
