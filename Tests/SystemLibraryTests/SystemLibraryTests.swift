import CMicroHTTPD
import CNghttp2
import COpenSSL
import CPostgres
import CSQLite
import Testing

/// Each C library links and reports a version, so a broken install fails here first.
@Suite(.timeLimit(.minutes(5))) struct SystemLibraryTests {
    @Test func versions() throws {
        #expect(nghttp2_version(0).pointee.version_num > 0)
        #expect(OpenSSL_version_num() >= 0x3000_0000)
        #expect(sqlite3_libversion_number() >= 3_035_000)
        #expect(PQlibVersion() > 0)
        #expect(MHD_get_version() != nil)
    }
}
