/// The Date header field: an RFC 1123 date in GMT (RFC 3261 §20.17), e.g. `Sat, 13 Nov 2010 23:29:00 GMT`.
/// Only `GMT` is a valid zone; anything else is a malformed value.
public struct SIPDate: Sendable, Hashable, Comparable, CustomStringConvertible, SIPHeaderEncodable {
    /// Seconds since 1970-01-01T00:00:00Z.
    public var secondsSince1970: Int64

    public init(secondsSince1970: Int64) {
        self.secondsSince1970 = secondsSince1970
    }

    public init(_ text: String) throws(MessageError) {
        self = try SIPDate.parseWhole(text, field: .date)
    }

    public static func < (a: SIPDate, b: SIPDate) -> Bool { a.secondsSince1970 < b.secondsSince1970 }

    static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        let days = secondsSince1970 >= 0 ? secondsSince1970 / 86400 : (secondsSince1970 - 86399) / 86400
        let secondOfDay = secondsSince1970 - days * 86400
        let (y, m, d) = SIPDate.civil(fromDays: days)
        buffer.append(SIPDate.weekdays[Int(((days % 7) + 7) % 7)])
        buffer.append(", ")
        appendTwo(Int(d), &buffer)
        buffer.append(ASCII.space)
        buffer.append(SIPDate.months[Int(m) - 1])
        buffer.append(ASCII.space)
        buffer.appendDecimal(y)
        buffer.append(ASCII.space)
        appendTwo(Int(secondOfDay / 3600), &buffer)
        buffer.append(ASCII.colon)
        appendTwo(Int(secondOfDay / 60 % 60), &buffer)
        buffer.append(ASCII.colon)
        appendTwo(Int(secondOfDay % 60), &buffer)
        buffer.append(" GMT")
    }

    private func appendTwo(_ v: Int, _ buffer: inout [UInt8]) {
        buffer.append(UInt8(0x30 + v / 10))
        buffer.append(UInt8(0x30 + v % 10))
    }

    /// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

extension SIPDate: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> SIPDate {
        func word(_ scanner: inout ByteScanner, _ options: [String]) -> Int? {
            guard let r = scanner.read(while: { $0.isAlpha }) else { return nil }
            let text = scanner.string(r)
            return options.firstIndex(of: text)
        }
        func number(_ scanner: inout ByteScanner, digits: Int) -> Int64? {
            guard let r = scanner.read(while: { $0.isDigit }), r.count == digits,
                let v = parseDecimal(scanner.bytes, r, limit: 9999)
            else { return nil }
            return Int64(v)
        }
        let bad = MessageError.malformed(field, "not an RFC 1123 date in GMT")
        guard word(&scanner, weekdays) != nil, scanner.consume(ASCII.comma), scanner.consume(ASCII.space),
            let day = number(&scanner, digits: 2), scanner.consume(ASCII.space),
            let month = word(&scanner, months), scanner.consume(ASCII.space),
            let year = number(&scanner, digits: 4), scanner.consume(ASCII.space),
            let hour = number(&scanner, digits: 2), scanner.consume(ASCII.colon),
            let minute = number(&scanner, digits: 2), scanner.consume(ASCII.colon),
            let second = number(&scanner, digits: 2), scanner.consume(ASCII.space),
            let zone = scanner.read(while: { $0.isAlpha }), scanner.string(zone) == "GMT",
            (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { throw bad }
        let days = SIPDate.days(year: year, month: Int64(month + 1), day: day)
        return SIPDate(secondsSince1970: days * 86400 + hour * 3600 + minute * 60 + second)
    }
}
