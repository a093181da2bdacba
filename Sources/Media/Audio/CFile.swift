#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A C stdio stream, closed when the last reference goes: the file handle of the WAV reader and writer.
final class CFile {
    let path: String
    private var stream: UnsafeMutablePointer<FILE>?

    /// Opens `path` with an `fopen` mode (`"rb"`, `"wb"`).
    init(path: String, mode: String) throws(AudioIOError) {
        guard let stream = fopen(path, mode) else { throw .cannotOpen(path, errno: errno) }
        self.path = path
        self.stream = stream
    }

    deinit {
        if let stream { fclose(stream) }
    }

    var isOpen: Bool { stream != nil }

    /// Reads up to `count` bytes; fewer only at the end of the file.
    func read(count: Int) throws(AudioIOError) -> [UInt8] {
        guard let stream else { throw .closed }
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, count, stream) }
        if got < count {
            if ferror(stream) != 0 { throw .readFailed(path, errno: errno) }
            bytes.removeLast(count - got)
        }
        return bytes
    }

    func write(_ bytes: [UInt8]) throws(AudioIOError) {
        guard let stream else { throw .closed }
        guard !bytes.isEmpty else { return }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, stream) }
        guard written == bytes.count else { throw .writeFailed(path, errno: errno) }
    }

    /// Moves to `offset` bytes from the start, or from the end when `fromEnd`.
    func seek(to offset: Int, fromEnd: Bool = false) throws(AudioIOError) {
        guard let stream else { throw .closed }
        guard fseeko(stream, off_t(offset), fromEnd ? SEEK_END : SEEK_SET) == 0 else {
            throw .readFailed(path, errno: errno)
        }
    }

    /// The current position in bytes.
    func position() throws(AudioIOError) -> Int {
        guard let stream else { throw .closed }
        let offset = ftello(stream)
        guard offset >= 0 else { throw .readFailed(path, errno: errno) }
        return Int(offset)
    }

    /// Hands buffered bytes to the kernel, so they survive the process.
    func flush() throws(AudioIOError) {
        guard let stream else { throw .closed }
        guard fflush(stream) == 0 else { throw .writeFailed(path, errno: errno) }
    }

    func close() throws(AudioIOError) {
        guard let stream else { return }
        self.stream = nil
        guard fclose(stream) == 0 else { throw .writeFailed(path, errno: errno) }
    }
}
