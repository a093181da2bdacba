import CSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One resolver state (`res_state`) for a series of queries; not shared between threads.
final class DNSSession {
    struct NAPTR {
        var order: UInt16
        var preference: UInt16
        var flags: String
        var service: String
        var replacement: String
    }

    struct SRV {
        var priority: UInt16
        var weight: UInt16
        var port: UInt16
        var target: String
    }

    private let state: res_state

    init(configuration: ResolverConfiguration) throws(TransportError) {
        guard let state = sb_res_new() else { throw TransportError(.system, "res_ninit failed") }
        self.state = state
        if let server = configuration.nameServer {
            guard server.family == .ipv4 else {
                sb_res_free(state)
                throw TransportError(.invalidAddress, "the name server must be IPv4")
            }
            let bytes = server.addressBytes
            let word = UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
            sb_res_set_server(
                state, word.bigEndian, server.port.bigEndian, configuration.timeoutSeconds, configuration.attempts)
        }
    }

    deinit { sb_res_free(state) }

    /// Runs a query and calls `body` with each answer record of `type`.
    private func query(_ name: String, type: Int32, _ body: (UnsafePointer<ns_rr>, ns_msg) -> Void) {
        var answer = [UInt8](repeating: 0, count: 4096)
        let length = answer.withUnsafeMutableBufferPointer { buffer in
            res_nquery(state, name, sb_ns_c_in, type, buffer.baseAddress, Int32(buffer.count))
        }
        guard length > 0 else { return }
        answer.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var message = ns_msg()
            guard ns_initparse(base, Int32(min(Int(length), buffer.count)), &message) == 0 else { return }
            let count = sb_ns_msg_count(message, ns_s_an)
            for i in 0..<count {
                var record = ns_rr()
                guard ns_parserr(&message, ns_s_an, Int32(i), &record) == 0 else { continue }
                guard Int32(sb_ns_rr_type(&record)) == type else { continue }
                withUnsafePointer(to: &record) { body($0, message) }
            }
        }
    }

    private func expandName(_ message: ns_msg, at pointer: UnsafePointer<UInt8>) -> String? {
        var buffer = [CChar](repeating: 0, count: 1025)
        let used = dn_expand(sb_ns_msg_base(message), sb_ns_msg_end(message), pointer, &buffer, Int32(buffer.count))
        guard used >= 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func naptr(_ name: String) -> [NAPTR] {
        var result: [NAPTR] = []
        query(name, type: sb_ns_t_naptr) { record, message in
            let length = Int(sb_ns_rr_rdlen(record))
            guard let data = sb_ns_rr_rdata(record), length >= 7 else { return }
            let rdata = UnsafeBufferPointer(start: data, count: length)
            let order = UInt16(rdata[0]) << 8 | UInt16(rdata[1])
            let preference = UInt16(rdata[2]) << 8 | UInt16(rdata[3])
            var offset = 4
            func characterString() -> String? {
                guard offset < rdata.count else { return nil }
                let count = Int(rdata[offset])
                guard offset + 1 + count <= rdata.count else { return nil }
                defer { offset += 1 + count }
                return String(decoding: rdata[(offset + 1)..<(offset + 1 + count)], as: UTF8.self)
            }
            guard let flags = characterString(), let service = characterString(), characterString() != nil,
                offset < rdata.count, let replacement = expandName(message, at: data + offset)
            else { return }
            result.append(
                NAPTR(order: order, preference: preference, flags: flags, service: service, replacement: replacement))
        }
        return result
    }

    func srv(_ name: String) -> [SRV] {
        var result: [SRV] = []
        query(name, type: sb_ns_t_srv) { record, message in
            let length = Int(sb_ns_rr_rdlen(record))
            guard let data = sb_ns_rr_rdata(record), length >= 7 else { return }
            let priority = UInt16(data[0]) << 8 | UInt16(data[1])
            let weight = UInt16(data[2]) << 8 | UInt16(data[3])
            let port = UInt16(data[4]) << 8 | UInt16(data[5])
            guard let target = expandName(message, at: data + 6), target != "." && !target.isEmpty else { return }
            result.append(SRV(priority: priority, weight: weight, port: port, target: target))
        }
        return result
    }

    func addresses(_ name: String, type: Int32) -> [SocketAddress] {
        var result: [SocketAddress] = []
        query(name, type: type) { record, _ in
            let length = Int(sb_ns_rr_rdlen(record))
            guard let data = sb_ns_rr_rdata(record) else { return }
            if type == sb_ns_t_a, length == 4 {
                var address = in_addr()
                withUnsafeMutableBytes(of: &address) {
                    $0.copyMemory(from: UnsafeRawBufferPointer(start: data, count: 4))
                }
                result.append(SocketAddress(ipv4: address, port: 0))
            } else if type == sb_ns_t_aaaa, length == 16 {
                var address = in6_addr()
                withUnsafeMutableBytes(of: &address) {
                    $0.copyMemory(from: UnsafeRawBufferPointer(start: data, count: 16))
                }
                result.append(SocketAddress(ipv6: address, port: 0, scopeID: 0))
            }
        }
        return result
    }
}

/// Reads /etc/hosts-style files.
enum HostsFile {
    static func lookup(_ name: String, in path: String) -> [SocketAddress] {
        guard let file = fopen(path, "r") else { return [] }
        defer { fclose(file) }
        var result: [SocketAddress] = []
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        let wanted = name.lowercased()
        while getline(&line, &capacity, file) > 0, let line {
            var text = String(cString: line)
            if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
            let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            guard fields.count >= 2, fields.dropFirst().contains(where: { $0.lowercased() == wanted }),
                let address = SocketAddress(ip: String(fields[0]), port: 0)
            else { continue }
            result.append(address)
        }
        return result
    }
}
