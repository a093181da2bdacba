import Foundation

/// The test corpora, read from Data/ next to this file (byte-exact copies of ../shared/corpora).
enum TestData {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Data")

    static func bytes(_ relativePath: String) -> [UInt8] {
        let url = directory.appendingPathComponent(relativePath)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            fatalError("missing test data \(relativePath)")
        }
        return [UInt8](data)
    }

    static func files(in folder: String, suffix: String) -> [String] {
        let url = directory.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { $0.hasSuffix(suffix) }.sorted()
    }

    static func torture(_ name: String) -> [UInt8] { bytes("rfc4475/\(name).dat") }
    static func bench(_ name: String) -> [UInt8] { bytes("bench/\(name)") }
}
