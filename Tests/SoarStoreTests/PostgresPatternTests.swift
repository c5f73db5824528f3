import Foundation
import SoarCore
@testable import SoarStore
import Testing

/// `~` and `~*` on SQLite answer as Postgres does where its regular expressions and ICU's read the
/// same text differently (the parity test asks Postgres itself the same questions).
@Suite(.timeLimit(.minutes(1))) struct PostgresPatternTests {
    let connection: SQLiteConnection

    init() throws {
        connection = try SQLiteConnection(path: ":memory:", readOnly: false)
    }

    func matches(_ subject: String, _ pattern: String, folded: Bool = false) throws -> Bool {
        let rows = try connection.statement("SELECT \(folded ? "regexp_i" : "regexp")(?1, ?2)").rows([.text(pattern), .text(subject)])
        return rows.first?.first == .integer(1)
    }

    @Test func theEndIsTheTextsEndNotALastNewline() throws {
        #expect(try matches("00aa", "^([0-9a-f][0-9a-f])+$"))
        #expect(try !matches("00aa\n", "^([0-9a-f][0-9a-f])+$"), "a device token's CHECK")
        #expect(try !matches("ABC\n", "^[a-z]+$", folded: true))
        #expect(try matches("ab", "b\\Z"))
        #expect(try !matches("b\n", "b\\Z"))
    }

    @Test func aDotMatchesANewline() throws {
        #expect(try matches("two\nlines", "^two.lines$"))
        #expect(try !matches("two\nlines\n", "^two.lines$"))
    }

    @Test func wordEscapesArePostgres() throws {
        #expect(try matches("two lines", "\\ylines\\y"))
        #expect(try !matches("twolines", "\\ylines"))
        #expect(try matches("twolines", "\\Ylines"))
        #expect(try matches("two lines", "\\mlines"))
        #expect(try matches("two lines", "two\\M"))
        #expect(try !matches("twolines", "two\\M"))
        #expect(try matches("a\\b", "a\\Bb"), "\\B is a backslash")
        #expect(try matches("a\u{8}b", "a\\bb"), "\\b is a backspace")
    }

    @Test func bracketsKeepTheirMembers() throws {
        #expect(try matches("a$b", "a[$]b"))
        #expect(try matches("a]b", "a[]]b"))
        #expect(try matches("a]b", "a[^x]b"))
        #expect(try matches("x9", "[[:digit:]]$"))
        #expect(try !matches("x9$", "[[:digit:]]$"))
        #expect(try matches("a[b", "a[[]b"))
        #expect(try matches("a&b", "a[&&]b"))
    }

    @Test func translation() {
        #expect(PostgresPattern.icu("^[a-z]+$") == "^[a-z]+\\z")
        #expect(PostgresPattern.icu("[$]\\$$") == "[$]\\$\\z")
        #expect(PostgresPattern.icu("[[:alpha:]$]$") == "[[:alpha:]$]\\z")
        #expect(PostgresPattern.icu("[]$]$") == "[\\]$]\\z")
        #expect(PostgresPattern.icu("[a[&]") == "[a\\[\\&]")
        #expect(PostgresPattern.icu("\\y\\Z") == "\\b\\z")
    }
}
