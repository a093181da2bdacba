/// Why a session description was refused, which line was at fault, and what a UAS answers.
///
/// Unparseable SDP is answered with 400 (Bad Request); well-formed SDP that cannot be accepted (no common
/// codec, an unsupported mandatory transport, SRTP required but not offered) with 488 (Not Acceptable Here,
/// RFC 3261 §13.3.1.1 and RFC 3264 §6); an offer that collides with one still outstanding with 491 or 500
/// (RFC 3261 §14.2, RFC 3311 §5.2, RFC 6337 §3.2). Match with `error.code == .badPort`.
public struct SDPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; grows over time, so match against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: UInt8, Sendable {
            case descriptionTooLarge, lineTooLong, tooManyLines, tooManyMediaDescriptions, invalidCharacter
            case malformedLine, missingLine, duplicateLine, misplacedLine, unsupportedVersion
            case malformedOrigin, malformedConnection, missingConnection, malformedBandwidth, malformedTiming
            case malformedMedia, badPort, malformedAttribute
            case noCommonCodec, unsupportedTransport, srtpRequired, noAcceptableCrypto, noAcceptableMedia
            case answerMismatch
            case offerPending, offerNotAnswered, noOfferPending, keySourceFailed
        }

        private let value: Value

        private init(_ value: Value) { self.value = value }

        /// The description is larger than `SDPLimits.maximumSize`.
        public static let descriptionTooLarge = Code(.descriptionTooLarge)
        /// A line is longer than `SDPLimits.maximumLineLength`.
        public static let lineTooLong = Code(.lineTooLong)
        /// The description has more lines than `SDPLimits.maximumLines`.
        public static let tooManyLines = Code(.tooManyLines)
        /// The description has more m= lines than `SDPLimits.maximumMediaDescriptions`.
        public static let tooManyMediaDescriptions = Code(.tooManyMediaDescriptions)
        /// A line holds NUL or a bare CR (RFC 8866 §5).
        public static let invalidCharacter = Code(.invalidCharacter)
        /// A line is not `<type>=<value>` with a lower-case letter as type (RFC 8866 §5).
        public static let malformedLine = Code(.malformedLine)
        /// A required line (v=, o=, s=) is missing.
        public static let missingLine = Code(.missingLine)
        /// A line that may appear once per section appears twice.
        public static let duplicateLine = Code(.duplicateLine)
        /// A session-level line inside a media section, or r= before any t=.
        public static let misplacedLine = Code(.misplacedLine)
        /// v= is not 0 (RFC 8866 §5.1).
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// A malformed o= line (RFC 8866 §5.2).
        public static let malformedOrigin = Code(.malformedOrigin)
        /// A malformed c= line (RFC 8866 §5.7).
        public static let malformedConnection = Code(.malformedConnection)
        /// A media section has no c= line and there is none at session level (RFC 8866 §5.7).
        public static let missingConnection = Code(.missingConnection)
        /// A malformed b= line (RFC 8866 §5.8).
        public static let malformedBandwidth = Code(.malformedBandwidth)
        /// A malformed t=, r= or z= line (RFC 8866 §5.9-5.11).
        public static let malformedTiming = Code(.malformedTiming)
        /// A malformed m= line (RFC 8866 §5.14).
        public static let malformedMedia = Code(.malformedMedia)
        /// A port that is not a number in 0...65535 (m=, a=rtcp) or a port count of 0.
        public static let badPort = Code(.badPort)
        /// A malformed value of an attribute the stack reads (rtpmap, fmtp, ptime, crypto, rtcp, ...).
        public static let malformedAttribute = Code(.malformedAttribute)
        /// No audio codec in the offer is one we support (RFC 3264 §6.1).
        public static let noCommonCodec = Code(.noCommonCodec)
        /// The audio stream's transport is not one we can use (DTLS-SRTP, RTP/SAVP with SRTP off, ...).
        public static let unsupportedTransport = Code(.unsupportedTransport)
        /// Our policy requires SRTP and the other side offered or answered no a=crypto (RFC 4568).
        public static let srtpRequired = Code(.srtpRequired)
        /// No offered crypto suite is one we support, or the answer's crypto does not fit the offer.
        public static let noAcceptableCrypto = Code(.noAcceptableCrypto)
        /// No usable audio stream: none offered, or every one disabled (port 0) or rejected.
        public static let noAcceptableMedia = Code(.noAcceptableMedia)
        /// An answer that does not fit its offer (RFC 3264 §6: other m-line count, type or transport).
        public static let answerMismatch = Code(.answerMismatch)
        /// An offer arrived (or was to be made) while our own offer awaits its answer: glare (491).
        public static let offerPending = Code(.offerPending)
        /// An offer arrived (or was to be made) while the other side's offer awaits our answer (500).
        public static let offerNotAnswered = Code(.offerNotAnswered)
        /// An answer arrived, or one was to be made, with no offer outstanding.
        public static let noOfferPending = Code(.noOfferPending)
        /// The SRTP key source gave no key material (or the wrong amount) (500).
        public static let keySourceFailed = Code(.keySourceFailed)

        /// The SIP status a UAS answers a request carrying this SDP with.
        public var status: Int {
            switch value {
            case .noCommonCodec, .unsupportedTransport, .srtpRequired, .noAcceptableCrypto, .noAcceptableMedia,
                .answerMismatch:
                return 488
            case .offerPending: return 491
            case .offerNotAnswered, .keySourceFailed: return 500
            default: return 400
            }
        }

        public var description: String {
            switch value {
            case .descriptionTooLarge: "description too large"
            case .lineTooLong: "line too long"
            case .tooManyLines: "too many lines"
            case .tooManyMediaDescriptions: "too many media descriptions"
            case .invalidCharacter: "invalid character"
            case .malformedLine: "malformed line"
            case .missingLine: "missing line"
            case .duplicateLine: "duplicate line"
            case .misplacedLine: "misplaced line"
            case .unsupportedVersion: "unsupported SDP version"
            case .malformedOrigin: "malformed o= line"
            case .malformedConnection: "malformed c= line"
            case .missingConnection: "missing c= line"
            case .malformedBandwidth: "malformed b= line"
            case .malformedTiming: "malformed timing line"
            case .malformedMedia: "malformed m= line"
            case .badPort: "bad port"
            case .malformedAttribute: "malformed attribute"
            case .noCommonCodec: "no common codec"
            case .unsupportedTransport: "unsupported transport"
            case .srtpRequired: "SRTP required"
            case .noAcceptableCrypto: "no acceptable crypto"
            case .noAcceptableMedia: "no acceptable media"
            case .answerMismatch: "answer does not match the offer"
            case .offerPending: "offer pending"
            case .offerNotAnswered: "offer not yet answered"
            case .noOfferPending: "no offer pending"
            case .keySourceFailed: "no SRTP key material"
            }
        }
    }

    /// What went wrong.
    public let code: Code
    /// The 1-based line number in the parsed text, when the fault was found while parsing.
    public let lineNumber: Int?
    /// The offending line (at most 100 bytes of it), when there is one: `m=audio x RTP/AVP 0`.
    public let line: String?
    /// What exactly is wrong, in a few words: `port is not a number`.
    public let detail: String

    init(_ code: Code, _ detail: String, line: String? = nil, lineNumber: Int? = nil) {
        self.code = code
        self.detail = detail
        self.lineNumber = lineNumber
        self.line = line.map(SDPError.clip)
    }

    /// The SIP status a UAS answers with: 400, 488, 491 or 500.
    public var status: Int { code.status }

    /// A reason phrase for the SIP status line that names the fault.
    public var reasonPhrase: String {
        let prefix: String
        switch status {
        case 488: prefix = "Not Acceptable Here"
        case 491: prefix = "Request Pending"
        case 500: prefix = "Server Internal Error"
        default: prefix = "Bad SDP"
        }
        if let lineNumber { return "\(prefix) (\(code), line \(lineNumber))" }
        return "\(prefix) (\(code))"
    }

    public var description: String {
        var text = "\(status) \(code): \(detail)"
        if let lineNumber { text += " (line \(lineNumber))" }
        if let line { text += ": \(line)" }
        return text
    }

    /// The same error, placed at `number` in the parsed text; `text` names the line when the error does not.
    func at(lineNumber number: Int, line text: String) -> SDPError {
        SDPError(code, detail, line: line ?? text, lineNumber: lineNumber ?? number)
    }

    private static func clip(_ text: String) -> String {
        let visible = text.utf8.prefix(100).map { $0 < 0x20 || $0 == 0x7F ? UInt8(ascii: "?") : $0 }
        return String(decoding: visible, as: UTF8.self)
    }
}
