import CSystem
package import Foundation
import SIPCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Version 4 UUIDs for calls, actions and transactions from a buffer of getrandom(2) bytes: Foundation's
/// `UUID()` opens, reads and closes /dev/urandom for each one, and a call takes three.
package enum RandomUUID {
    private struct Pool {
        var bytes = [UInt8](repeating: 0, count: 1024)
        var offset = 1024

        mutating func nextWord() -> UInt64 {
            if offset + 8 > bytes.count { refill() }
            defer { offset += 8 }
            return bytes.withUnsafeBytes { raw in raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
        }

        mutating func next16() -> uuid_t {
            if offset + 16 > bytes.count { refill() }
            defer { offset += 16 }
            return bytes.withUnsafeBytes { raw in
                raw.loadUnaligned(fromByteOffset: offset, as: uuid_t.self)
            }
        }

        private mutating func refill() {
            bytes.withUnsafeMutableBytes { fillRandomly($0) }
            offset = 0
        }
    }

    private static let pool = Mutex(Pool())

    /// A random (version 4, RFC 9562 §5.4) UUID.
    package static func make() -> UUID {
        stamped(pool.withLock { $0.next16() })
    }

    /// A version 4 UUID from 128 random bits.
    static func version4(high: UInt64, low: UInt64) -> UUID {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { bytes in
            bytes.storeBytes(of: high, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: low, toByteOffset: 8, as: UInt64.self)
        }
        return stamped(raw)
    }

    /// Sets the version (4) and variant (RFC 4122) bits.
    private static func stamped(_ bits: uuid_t) -> UUID {
        var raw = bits
        raw.6 = (raw.6 & 0x0F) | 0x40
        raw.8 = (raw.8 & 0x3F) | 0x80
        return UUID(uuid: raw)
    }

    /// 64 random bits from the same buffer.
    static func word() -> UInt64 { pool.withLock { $0.nextWord() } }
}

/// Random numbers from `RandomUUID`'s getrandom buffer: the seeds of sessions and offer/answer, which
/// `SystemRandomNumberGenerator` would fetch with a system call each (two per call).
struct PooledRandomNumberGenerator: RandomNumberGenerator {
    mutating func next() -> UInt64 { RandomUUID.word() }
}
