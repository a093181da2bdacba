/// The header fields the stack knows by name, with their compact forms (IANA SIP parameters registry).
/// Parsing classifies each field name once, so lookups compare a byte instead of a string.
enum KnownHeader: UInt8, CaseIterable, Sendable {
    case accept = 1
    case acceptContact
    case acceptEncoding
    case acceptLanguage
    case alertInfo
    case allow
    case allowEvents
    case authenticationInfo
    case authorization
    case callID
    case callInfo
    case contact
    case contentDisposition
    case contentEncoding
    case contentLanguage
    case contentLength
    case contentType
    case cseq
    case date
    case errorInfo
    case event
    case expires
    case from
    case identity
    case identityInfo
    case inReplyTo
    case maxForwards
    case mimeVersion
    case minExpires
    case minSE
    case organization
    case pAssertedIdentity
    case pPreferredIdentity
    case path
    case priority
    case privacy
    case proxyAuthenticate
    case proxyAuthorization
    case proxyRequire
    case rack
    case reason
    case recordRoute
    case referSub
    case referTo
    case referredBy
    case rejectContact
    case replaces
    case replyTo
    case requestDisposition
    case require
    case retryAfter
    case route
    case rseq
    case server
    case serviceRoute
    case sessionExpires
    case subject
    case subscriptionState
    case supported
    case timestamp
    case to
    case unsupported
    case userAgent
    case via
    case warning
    case wwwAuthenticate

    /// The conventional spelling, used when the stack writes the field.
    var displayName: String {
        switch self {
        case .accept: "Accept"
        case .acceptContact: "Accept-Contact"
        case .acceptEncoding: "Accept-Encoding"
        case .acceptLanguage: "Accept-Language"
        case .alertInfo: "Alert-Info"
        case .allow: "Allow"
        case .allowEvents: "Allow-Events"
        case .authenticationInfo: "Authentication-Info"
        case .authorization: "Authorization"
        case .callID: "Call-ID"
        case .callInfo: "Call-Info"
        case .contact: "Contact"
        case .contentDisposition: "Content-Disposition"
        case .contentEncoding: "Content-Encoding"
        case .contentLanguage: "Content-Language"
        case .contentLength: "Content-Length"
        case .contentType: "Content-Type"
        case .cseq: "CSeq"
        case .date: "Date"
        case .errorInfo: "Error-Info"
        case .event: "Event"
        case .expires: "Expires"
        case .from: "From"
        case .identity: "Identity"
        case .identityInfo: "Identity-Info"
        case .inReplyTo: "In-Reply-To"
        case .maxForwards: "Max-Forwards"
        case .mimeVersion: "MIME-Version"
        case .minExpires: "Min-Expires"
        case .minSE: "Min-SE"
        case .organization: "Organization"
        case .pAssertedIdentity: "P-Asserted-Identity"
        case .pPreferredIdentity: "P-Preferred-Identity"
        case .path: "Path"
        case .priority: "Priority"
        case .privacy: "Privacy"
        case .proxyAuthenticate: "Proxy-Authenticate"
        case .proxyAuthorization: "Proxy-Authorization"
        case .proxyRequire: "Proxy-Require"
        case .rack: "RAck"
        case .reason: "Reason"
        case .recordRoute: "Record-Route"
        case .referSub: "Refer-Sub"
        case .referTo: "Refer-To"
        case .referredBy: "Referred-By"
        case .rejectContact: "Reject-Contact"
        case .replaces: "Replaces"
        case .replyTo: "Reply-To"
        case .requestDisposition: "Request-Disposition"
        case .require: "Require"
        case .retryAfter: "Retry-After"
        case .route: "Route"
        case .rseq: "RSeq"
        case .server: "Server"
        case .serviceRoute: "Service-Route"
        case .sessionExpires: "Session-Expires"
        case .subject: "Subject"
        case .subscriptionState: "Subscription-State"
        case .supported: "Supported"
        case .timestamp: "Timestamp"
        case .to: "To"
        case .unsupported: "Unsupported"
        case .userAgent: "User-Agent"
        case .via: "Via"
        case .warning: "Warning"
        case .wwwAuthenticate: "WWW-Authenticate"
        }
    }

    /// The compact form (RFC 3261 §7.3.3 and later RFCs), if the field has one.
    var compactForm: UInt8? {
        switch self {
        case .acceptContact: UInt8(ascii: "a")
        case .referredBy: UInt8(ascii: "b")
        case .contentType: UInt8(ascii: "c")
        case .requestDisposition: UInt8(ascii: "d")
        case .contentEncoding: UInt8(ascii: "e")
        case .from: UInt8(ascii: "f")
        case .callID: UInt8(ascii: "i")
        case .rejectContact: UInt8(ascii: "j")
        case .supported: UInt8(ascii: "k")
        case .contentLength: UInt8(ascii: "l")
        case .contact: UInt8(ascii: "m")
        case .identityInfo: UInt8(ascii: "n")
        case .event: UInt8(ascii: "o")
        case .referTo: UInt8(ascii: "r")
        case .subject: UInt8(ascii: "s")
        case .to: UInt8(ascii: "t")
        case .allowEvents: UInt8(ascii: "u")
        case .via: UInt8(ascii: "v")
        case .sessionExpires: UInt8(ascii: "x")
        case .identity: UInt8(ascii: "y")
        default: nil
        }
    }

    /// The canonical (lower-case long form) name.
    var canonicalName: String { Self.canonicalNames[Int(rawValue)] }

    static let canonicalNames: [String] = {
        var names = [""]
        for header in KnownHeader.allCases { names.append(header.displayName.lowercasedASCII) }
        return names
    }()

    private static let compactTable: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 128)
        for header in KnownHeader.allCases {
            if let c = header.compactForm { table[Int(c)] = header.rawValue }
        }
        return table
    }()

    /// Classifies a field name given as bytes; returns 0 for names the stack does not know. The name is
    /// packed, lower-cased, into three 64-bit words and compared with constants (generated from `displayName`).
    static func classify<C: RandomAccessCollection<UInt8>>(_ bytes: C, _ range: Range<Int>) -> UInt8
    where C.Index == Int {
        let count = range.count
        if count == 1 {
            let c = bytes[range.lowerBound].lowercasedASCII
            return c < 128 ? compactTable[Int(c)] : 0
        }
        guard count <= 24 else { return 0 }
        var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &words) { packed in
            for (k, i) in range.enumerated() { packed[k] = bytes[i].lowercasedASCII }
        }
        return classify(
            count: count,
            words: (UInt64(littleEndian: words.0), UInt64(littleEndian: words.1), UInt64(littleEndian: words.2)))
    }

    /// Classifies a name of `count` (2...24) bytes from its packed lower-case words.
    @inline(__always)
    static func classify(count: Int, words: (UInt64, UInt64, UInt64)) -> UInt8 {
        let header: KnownHeader?
        switch count {
        case 2:
            switch words {
            case (0x6F74, 0x0, 0x0): header = .to
            default: header = nil
            }
        case 3:
            switch words {
            case (0x616976, 0x0, 0x0): header = .via
            default: header = nil
            }
        case 4:
            switch words {
            case (0x71657363, 0x0, 0x0): header = .cseq
            case (0x65746164, 0x0, 0x0): header = .date
            case (0x6D6F7266, 0x0, 0x0): header = .from
            case (0x68746170, 0x0, 0x0): header = .path
            case (0x6B636172, 0x0, 0x0): header = .rack
            case (0x71657372, 0x0, 0x0): header = .rseq
            default: header = nil
            }
        case 5:
            switch words {
            case (0x776F6C6C61, 0x0, 0x0): header = .allow
            case (0x746E657665, 0x0, 0x0): header = .event
            case (0x6574756F72, 0x0, 0x0): header = .route
            default: header = nil
            }
        case 6:
            switch words {
            case (0x747065636361, 0x0, 0x0): header = .accept
            case (0x65732D6E696D, 0x0, 0x0): header = .minSE
            case (0x6E6F73616572, 0x0, 0x0): header = .reason
            case (0x726576726573, 0x0, 0x0): header = .server
            default: header = nil
            }
        case 7:
            switch words {
            case (0x64692D6C6C6163, 0x0, 0x0): header = .callID
            case (0x746361746E6F63, 0x0, 0x0): header = .contact
            case (0x73657269707865, 0x0, 0x0): header = .expires
            case (0x79636176697270, 0x0, 0x0): header = .privacy
            case (0x65726975716572, 0x0, 0x0): header = .require
            case (0x7463656A627573, 0x0, 0x0): header = .subject
            case (0x676E696E726177, 0x0, 0x0): header = .warning
            default: header = nil
            }
        case 8:
            switch words {
            case (0x797469746E656469, 0x0, 0x0): header = .identity
            case (0x797469726F697270, 0x0, 0x0): header = .priority
            case (0x6F742D7265666572, 0x0, 0x0): header = .referTo
            case (0x736563616C706572, 0x0, 0x0): header = .replaces
            case (0x6F742D796C706572, 0x0, 0x0): header = .replyTo
            default: header = nil
            }
        case 9:
            switch words {
            case (0x666E692D6C6C6163, 0x6F, 0x0): header = .callInfo
            case (0x75732D7265666572, 0x62, 0x0): header = .referSub
            case (0x6574726F70707573, 0x64, 0x0): header = .supported
            case (0x6D617473656D6974, 0x70, 0x0): header = .timestamp
            default: header = nil
            }
        case 10:
            switch words {
            case (0x6E692D7472656C61, 0x6F66, 0x0): header = .alertInfo
            case (0x6E692D726F727265, 0x6F66, 0x0): header = .errorInfo
            case (0x6567612D72657375, 0x746E, 0x0): header = .userAgent
            default: header = nil
            }
        case 11:
            switch words {
            case (0x796C7065722D6E69, 0x6F742D, 0x0): header = .inReplyTo
            case (0x697078652D6E696D, 0x736572, 0x0): header = .minExpires
            case (0x6465727265666572, 0x79622D, 0x0): header = .referredBy
            case (0x66612D7972746572, 0x726574, 0x0): header = .retryAfter
            case (0x726F707075736E75, 0x646574, 0x0): header = .unsupported
            default: header = nil
            }
        case 12:
            switch words {
            case (0x76652D776F6C6C61, 0x73746E65, 0x0): header = .allowEvents
            case (0x2D746E65746E6F63, 0x65707974, 0x0): header = .contentType
            case (0x77726F662D78616D, 0x73647261, 0x0): header = .maxForwards
            case (0x7265762D656D696D, 0x6E6F6973, 0x0): header = .mimeVersion
            case (0x617A696E6167726F, 0x6E6F6974, 0x0): header = .organization
            case (0x722D64726F636572, 0x6574756F, 0x0): header = .recordRoute
            default: header = nil
            }
        case 13:
            switch words {
            case (0x7A69726F68747561, 0x6E6F697461, 0x0): header = .authorization
            case (0x797469746E656469, 0x6F666E692D, 0x0): header = .identityInfo
            case (0x65722D79786F7270, 0x6572697571, 0x0): header = .proxyRequire
            case (0x2D65636976726573, 0x6574756F72, 0x0): header = .serviceRoute
            default: header = nil
            }
        case 14:
            switch words {
            case (0x632D747065636361, 0x746361746E6F, 0x0): header = .acceptContact
            case (0x2D746E65746E6F63, 0x6874676E656C, 0x0): header = .contentLength
            case (0x632D7463656A6572, 0x746361746E6F, 0x0): header = .rejectContact
            default: header = nil
            }
        case 15:
            switch words {
            case (0x652D747065636361, 0x676E69646F636E, 0x0): header = .acceptEncoding
            case (0x6C2D747065636361, 0x65676175676E61, 0x0): header = .acceptLanguage
            case (0x2D6E6F6973736573, 0x73657269707865, 0x0): header = .sessionExpires
            default: header = nil
            }
        case 16:
            switch words {
            case (0x2D746E65746E6F63, 0x676E69646F636E65, 0x0): header = .contentEncoding
            case (0x2D746E65746E6F63, 0x65676175676E616C, 0x0): header = .contentLanguage
            case (0x687475612D777777, 0x6574616369746E65, 0x0): header = .wwwAuthenticate
            default: header = nil
            }
        case 18:
            switch words {
            case (0x75612D79786F7270, 0x616369746E656874, 0x6574): header = .proxyAuthenticate
            case (0x7069726373627573, 0x6174732D6E6F6974, 0x6574): header = .subscriptionState
            default: header = nil
            }
        case 19:
            switch words {
            case (0x69746E6568747561, 0x692D6E6F69746163, 0x6F666E): header = .authenticationInfo
            case (0x2D746E65746E6F63, 0x7469736F70736964, 0x6E6F69): header = .contentDisposition
            case (0x7472657373612D70, 0x746E6564692D6465, 0x797469): header = .pAssertedIdentity
            case (0x75612D79786F7270, 0x74617A69726F6874, 0x6E6F69): header = .proxyAuthorization
            case (0x2D74736575716572, 0x7469736F70736964, 0x6E6F69): header = .requestDisposition
            default: header = nil
            }
        case 20:
            switch words {
            case (0x7265666572702D70, 0x6E6564692D646572, 0x79746974): header = .pPreferredIdentity
            default: header = nil
            }
        default: header = nil
        }
        return header?.rawValue ?? 0
    }

    static func classify(_ name: String) -> UInt8 {
        let bytes = Array(name.utf8)
        return classify(bytes, 0..<bytes.count)
    }
}
