/// Where a call's outgoing audio comes from: pulled one frame at a time, in the source's `format`.
///
/// A media session asks for one packet interval (20 ms) each time; `ConvertingSource` adapts any source to
/// the codec's format.
public protocol AudioSource {
    /// The format of the frames `read(samplesPerChannel:)` returns.
    var format: AudioFormat { get }

    /// Reads the next frame.
    /// - Parameter samplesPerChannel: samples per channel wanted (160 for 20 ms at 8 kHz).
    /// - Returns: exactly `samplesPerChannel × format.channels` interleaved samples (the last frame of a
    ///   finite source is padded with silence), or `nil` once the source has ended.
    /// - Throws: `AudioIOError` when the source cannot be read (a file read error).
    mutating func read(samplesPerChannel: Int) throws(AudioIOError) -> [Int16]?
}

/// Where a call's incoming audio goes: pushed one frame at a time, in the sink's `format`.
///
/// `ConvertingSink` adapts any sink to the decoder's format.
public protocol AudioSink {
    /// The format of the frames `write(_:)` takes.
    var format: AudioFormat { get }

    /// Writes the next frame.
    /// - Parameter samples: interleaved samples in `format` (a whole number of frames, any count).
    /// - Throws: `AudioIOError` when the sink cannot take them (a file write error).
    mutating func write(_ samples: [Int16]) throws(AudioIOError)
}

/// An error from an audio source or sink. A struct over a private code, so new cases do not break users.
public struct AudioIOError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case cannotOpen(path: String, errno: Int32)
        case readFailed(path: String, errno: Int32)
        case writeFailed(path: String, errno: Int32)
        case invalidFile(path: String, reason: String)
        case unsupportedFormat(String)
        case closed
    }

    private let code: Code

    /// The file could not be opened.
    /// - Parameters:
    ///   - path: the file.
    ///   - errno: the C library's error number.
    public static func cannotOpen(_ path: String, errno: Int32) -> AudioIOError {
        AudioIOError(code: .cannotOpen(path: path, errno: errno))
    }

    /// Reading failed.
    /// - Parameters:
    ///   - path: the file.
    ///   - errno: the C library's error number.
    public static func readFailed(_ path: String, errno: Int32) -> AudioIOError {
        AudioIOError(code: .readFailed(path: path, errno: errno))
    }

    /// Writing failed (disk full, ...).
    /// - Parameters:
    ///   - path: the file.
    ///   - errno: the C library's error number.
    public static func writeFailed(_ path: String, errno: Int32) -> AudioIOError {
        AudioIOError(code: .writeFailed(path: path, errno: errno))
    }

    /// The file is not a WAV file this library reads.
    /// - Parameters:
    ///   - path: the file.
    ///   - reason: what is wrong with it.
    public static func invalidFile(_ path: String, _ reason: String) -> AudioIOError {
        AudioIOError(code: .invalidFile(path: path, reason: reason))
    }

    /// A format the source or sink cannot handle (a rate of 0, 3 channels, ...).
    /// - Parameter reason: which.
    public static func unsupportedFormat(_ reason: String) -> AudioIOError {
        AudioIOError(code: .unsupportedFormat(reason))
    }

    /// The source or sink was used after it was closed.
    public static let closed = AudioIOError(code: .closed)

    public var description: String {
        switch code {
        case .cannotOpen(let path, let errno): "cannot open \(path) (errno \(errno))"
        case .readFailed(let path, let errno): "cannot read \(path) (errno \(errno))"
        case .writeFailed(let path, let errno): "cannot write \(path) (errno \(errno))"
        case .invalidFile(let path, let reason): "\(path) is not a readable WAV file: \(reason)"
        case .unsupportedFormat(let reason): "unsupported audio format: \(reason)"
        case .closed: "the audio file is closed"
        }
    }
}
