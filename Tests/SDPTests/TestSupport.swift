import Foundation
import SDP

/// The SDP files under Data/, read byte for byte.
enum TestData {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Data")

    static func bytes(_ relativePath: String) -> [UInt8] {
        let url = directory.appendingPathComponent(relativePath)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            fatalError("missing test data \(relativePath)")
        }
        return [UInt8](data)
    }

    static func text(_ relativePath: String) -> String { String(decoding: bytes(relativePath), as: UTF8.self) }

    static func files(in folder: String) -> [String] {
        let url = directory.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { $0.hasSuffix(".sdp") }.sorted().map { "\(folder)/\($0)" }
    }

    static func description(_ relativePath: String) throws -> SessionDescription {
        try SessionDescription(parsing: bytes(relativePath))
    }
}

/// `text` with LF line ends turned into CRLF, for expected descriptions written inline.
func crlf(_ text: String) -> String {
    text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n")
}

/// Parses a description written inline with LF line ends.
func sdp(_ text: String) throws -> SessionDescription {
    try SessionDescription(parsing: crlf(text))
}
