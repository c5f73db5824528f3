import SoarStore
import Testing

/// What messages and the start-up banner show of a Postgres connection string: never its password.
@Suite(.timeLimit(.minutes(5))) struct DatabaseURLTests {
    @Test(arguments: [
        ("postgres://app:S3cret!@db:5432/soar", "postgres://app:***@db:5432/soar"),
        ("postgres://app@db/soar?password=S3cret!&sslmode=require", "postgres://app@db/soar?password=***&sslmode=require"),
        ("host=db port=5432 dbname=soar user=app password=S3cret!", "host=db port=5432 dbname=soar user=app password=***"),
        ("host=db password = 'two words\\' and more' dbname=soar", "host=db password = *** dbname=soar"),
        ("postgres://app@db/soar", "postgres://app@db/soar"),
    ])
    func thePasswordIsHiddenInEveryFormLibpqTakes(url: String, shown: String) {
        let display = PostgresStore.withoutPassword(url)
        #expect(display == shown)
        #expect(!display.contains("S3cret") && !display.contains("two words"))
    }
}
