// The hot typed views (top Via, From, To, Contact, CSeq, Call-ID) read the usual shape of their value straight from
// the storage with the fast readers; anything else goes to the general readers, which give the same value or the
// error.

extension SIPFields {
    /// `fast` over the value of `entry` when it reads the whole value; `nil` otherwise (then the caller's general
    /// reader decides, as if `fast` had not run).
    @inline(__always)
    func readWhole<T>(_ entry: Entry, _ fast: (inout ByteScanner) -> T?) throws(MessageError) -> T? {
        try ByteScanner.scan(storage, entry.valueRange) { (scanner) -> T? in
            guard let value = fast(&scanner), scanner.isAtEnd else { return nil }
            return value
        }
    }

    /// A single-valued address header (From, To): the fast reader, else `parseSingle`.
    @inline(__always)
    func singleAddress(_ header: KnownHeader) throws(MessageError) -> NameAddress? {
        guard let entry = firstEntry(header) else { return nil }
        if let address = try readWhole(entry, NameAddress.parseFast) { return address }
        return try self.parseSingle(header, as: NameAddress.self)
    }

    /// The Call-ID's range: the fast reader, else `parseSingle`.
    var callIDValue: CallIDValue? {
        @inline(__always) get throws(MessageError) {
            guard let entry = firstEntry(.callID) else { return nil }
            if let value = try readWhole(entry, CallIDValue.parseFast) { return value }
            return try self.parseSingle(.callID, as: CallIDValue.self)
        }
    }
}

extension CSeq {
    /// `1*DIGIT SP Method` with one space and at most ten digits; `nil`, with the scanner where it was, for
    /// anything else (`parse` then reads it, or throws).
    @inline(__always)
    static func parseFast(_ scanner: inout ByteScanner) -> CSeq? {
        guard let (number, method) = parseFastNumber(&scanner) else { return nil }
        return CSeq(number, SIPMethod(unchecked: ByteScanner.internedToken(scanner.bytes, method)))
    }
}

extension CSeq {
    /// `parseFast`'s shape without making the method: the number and the method's range, with the scanner
    /// after the method; `nil`, with the scanner where it was, for anything else.
    @inline(__always)
    static func parseFastNumber(_ scanner: inout ByteScanner) -> (number: UInt32, method: Range<Int>)? {
        let bytes = scanner.bytes
        let end = scanner.end
        guard
            let (digitsEnd, number) = readDecimal(
                bytes, from: scanner.index, to: end, maxDigits: 10, limit: UInt64(CSeq.maximum)),
            digitsEnd < end, bytes[digitsEnd] == ASCII.space
        else { return nil }
        let methodStart = digitsEnd &+ 1
        let methodEnd = ByteScanner.skip(bytes, from: methodStart, to: end, while: { $0.isTokenChar })
        guard methodEnd > methodStart else { return nil }
        scanner.index = methodEnd
        return (UInt32(truncatingIfNeeded: number), methodStart..<methodEnd)
    }
}

extension SIPFields {
    /// The CSeq's sequence number alone, read without making its method: the same number, `nil` or error as
    /// `cseq`.
    package var cseqNumber: UInt32? {
        get throws(MessageError) {
            guard let entry = firstEntry(.cseq) else { return nil }
            if let read = try readWhole(entry, CSeq.parseFastNumber) { return read.number }
            return try self.parseSingle(.cseq, as: CSeq.self)?.sequenceNumber
        }
    }

    /// The CSeq's sequence number when its method is `method`; `nil` when CSeq is missing or names another
    /// method. The same verdict and error as reading `cseq` and comparing its method, without making the method.
    package func cseqNumber(ifMethodIs method: SIPMethod) throws(MessageError) -> UInt32? {
        guard let entry = firstEntry(.cseq) else { return nil }
        let fast = try ByteScanner.scan(storage, entry.valueRange) { (scanner) -> UInt32?? in
            guard let (number, range) = CSeq.parseFastNumber(&scanner), scanner.isAtEnd else { return nil }
            let name = method.rawValue.utf8
            guard name.count == range.count else { return .some(nil) }
            var k = range.lowerBound
            for byte in name {
                guard scanner.bytes[k] == byte else { return .some(nil) }
                k &+= 1
            }
            return .some(number)
        }
        if let fast { return fast }
        guard let cseq = try self.parseSingle(.cseq, as: CSeq.self), cseq.method == method else { return nil }
        return cseq.sequenceNumber
    }
}

extension SIPFields {
    /// The first Contact's URI alone, read without making the Contact when it has the usual shape: the same
    /// URI, `nil` (no Contact, or `*`) or error as `firstContact?.uri`.
    package var firstContactURI: URI? {
        get throws(MessageError) {
            guard let entry = firstEntry(.contact) else { return nil }
            if let uri = try readWhole(entry, NameAddress.parseFastURI) { return .sip(uri) }
            return try self.parseFirst(.contact, as: Contact.self)?.uri
        }
    }
}

extension CallIDValue {
    /// `word [ "@" word ]`; `nil`, with the scanner where it was, when that is not what is next.
    @inline(__always)
    static func parseFast(_ scanner: inout ByteScanner) -> CallIDValue? {
        let bytes = scanner.bytes
        let start = scanner.index
        let end = scanner.end
        var i = ByteScanner.skip(bytes, from: start, to: end, while: { $0.isWordChar })
        guard i > start else { return nil }
        if i < end, bytes[i] == ASCII.at {
            let wordStart = i &+ 1
            i = ByteScanner.skip(bytes, from: wordStart, to: end, while: { $0.isWordChar })
            guard i > wordStart else { return nil }
        }
        scanner.index = i
        return CallIDValue(range: ByteRange(start..<i))
    }
}

extension SIPFields {
    /// The first hot view that differs from the general readers alone (`parseFirst`, `parseSingle`), in value,
    /// wire form or error; `nil` when they all agree. For the fuzz target and the tests.
    package func hotViewMismatch() -> String? {
        func same<T: Equatable & CustomStringConvertible>(
            _ view: () throws(MessageError) -> T?, _ general: () throws(MessageError) -> T?
        ) -> Bool {
            switch (
                Result { () throws(MessageError) in try view() }, Result { () throws(MessageError) in try general() }
            ) {
            case (.success(let a), .success(let b)): return a == b && a?.description == b?.description
            case (.failure(let a), .failure(let b)): return a == b
            default: return false
            }
        }
        if !same(
            { () throws(MessageError) in try topVia }, { () throws(MessageError) in try parseFirst(.via, as: Via.self) }
        ) {
            return "topVia"
        }
        if !same(
            { () throws(MessageError) in try from },
            { () throws(MessageError) in try parseSingle(.from, as: NameAddress.self) })
        {
            return "from"
        }
        if !same(
            { () throws(MessageError) in try to },
            { () throws(MessageError) in try parseSingle(.to, as: NameAddress.self) })
        {
            return "to"
        }
        if !same(
            { () throws(MessageError) in try firstContact },
            { () throws(MessageError) in try parseFirst(.contact, as: Contact.self) })
        {
            return "firstContact"
        }
        if !same(
            { () throws(MessageError) in try firstContactURI },
            { () throws(MessageError) in try parseFirst(.contact, as: Contact.self)?.uri })
        {
            return "firstContactURI"
        }
        if !same(
            { () throws(MessageError) in try cseq },
            { () throws(MessageError) in try parseSingle(.cseq, as: CSeq.self) })
        {
            return "cseq"
        }
        if !same(
            { () throws(MessageError) in try cseqNumber },
            { () throws(MessageError) in try parseSingle(.cseq, as: CSeq.self)?.sequenceNumber })
        {
            return "cseqNumber"
        }
        // The method compared as written: case matters, and an extension method is compared in full.
        for method: SIPMethod in [.invite, .options, .ack, "invite", "OPTIONSX"] {
            let general = { () throws(MessageError) -> UInt32? in
                guard let cseq = try parseSingle(.cseq, as: CSeq.self), cseq.method == method else { return nil }
                return cseq.sequenceNumber
            }
            if !same({ () throws(MessageError) in try cseqNumber(ifMethodIs: method) }, general) {
                return "cseqNumber(ifMethodIs: \(method))"
            }
        }
        let generalCallID = { () throws(MessageError) in
            try parseSingle(.callID, as: CallIDValue.self).map { storage.string($0.range) }
        }
        if !same({ () throws(MessageError) in try callID }, generalCallID) { return "callID" }
        return nil
    }
}
