import Testing

@testable import SIPTransport

#if canImport(Glibc)
    import Glibc
#endif

/// System call errors in the transport's terms: a connection that was reset, broken or aborted (a socket
/// killed under it, `ss -K`) is a closed connection.
@Suite struct TransportErrorTests {
    @Test(arguments: [ECONNRESET, EPIPE, ECONNABORTED])
    func aBrokenConnectionIsClosed(errno: Int32) {
        let error = TransportError.system("recv", errno: errno)
        #expect(error.code == .connectionClosed)
        #expect(error.errno == errno)
        #expect(error.detail.hasPrefix("recv: "))
    }

    @Test func otherErrorsStaySystemCalls() {
        #expect(TransportError.system("recv", errno: EBADF).code == .system)
        #expect(TransportError.system("connect", errno: ECONNREFUSED).code == .connectionRefused)
    }
}
