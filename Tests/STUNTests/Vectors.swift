/// The test vectors, typed from the RFCs' hex dumps (one line per four bytes, as printed there).
enum Vectors {
    /// RFC 5769 §2.1: a Binding request with SOFTWARE, PRIORITY, ICE-CONTROLLED, USERNAME, MESSAGE-INTEGRITY
    /// (short-term, password below) and FINGERPRINT. USERNAME's padding is three spaces, not zeros.
    static let sampleRequest = hex(
        """
        00 01 00 58  21 12 a4 42  b7 e7 a7 01  bc 34 d6 86  fa 87 df ae
        80 22 00 10  53 54 55 4e  20 74 65 73  74 20 63 6c  69 65 6e 74
        00 24 00 04  6e 00 01 ff
        80 29 00 08  93 2f f9 b1  51 26 3b 36
        00 06 00 09  65 76 74 6a  3a 68 36 76  59 20 20 20
        00 08 00 14  9a ea a7 0c  bf d8 cb 56  78 1e f2 b5  b2 d3 f2 49  c1 b5 71 a2
        80 28 00 04  e5 7a 3b cf
        """)

    /// RFC 5769 §2.2: the IPv4 success response (192.0.2.1:32853). SOFTWARE's padding is a space.
    static let ipv4Response = hex(
        """
        01 01 00 3c  21 12 a4 42  b7 e7 a7 01  bc 34 d6 86  fa 87 df ae
        80 22 00 0b  74 65 73 74  20 76 65 63  74 6f 72 20
        00 20 00 08  00 01 a1 47  e1 12 a6 43
        00 08 00 14  2b 91 f5 99  fd 9e 90 c3  8c 74 89 f9  2a f9 ba 53  f0 6b e7 d7
        80 28 00 04  c0 7d 4c 96
        """)

    /// RFC 5769 §2.3: the IPv6 success response ([2001:db8:1234:5678:11:2233:4455:6677]:32853).
    static let ipv6Response = hex(
        """
        01 01 00 48  21 12 a4 42  b7 e7 a7 01  bc 34 d6 86  fa 87 df ae
        80 22 00 0b  74 65 73 74  20 76 65 63  74 6f 72 20
        00 20 00 14  00 02 a1 47  01 13 a9 fa  a5 d3 f1 79  bc 25 f4 b5  be d2 b9 d9
        00 08 00 14  a3 82 95 4e  4b e6 7b f1  17 84 c9 7c  82 92 c2 75  bf e3 ed 41
        80 28 00 04  c8 fb 0b 4c
        """)

    /// RFC 5769 §2.4: a request with long-term credentials (USERNAME, NONCE, REALM, MESSAGE-INTEGRITY), zero
    /// padding, no FINGERPRINT.
    static let longTermRequest = hex(
        """
        00 01 00 60  21 12 a4 42  78 ad 34 33  c6 ad 72 c0  29 da 41 2e
        00 06 00 12  e3 83 9e e3  83 88 e3 83  aa e3 83 83  e3 82 af e3  82 b9 00 00
        00 15 00 1c  66 2f 2f 34  39 39 6b 39  35 34 64 36  4f 4c 33 34  6f 4c 39 46  53 54 76 79  36 34 73 41
        00 14 00 0b  65 78 61 6d  70 6c 65 2e  6f 72 67 00
        00 08 00 14  f6 70 24 65  6d d6 4a 3e  02 b8 e0 71  2e 85 c9 a2  8c a8 96 66
        """)

    /// RFC 8489 Appendix B.1 as corrected by erratum 6268: USERHASH, NONCE, REALM, PASSWORD-ALGORITHM (SHA-256)
    /// and MESSAGE-INTEGRITY-SHA256 with the SHA-256 long-term key.
    static let sha256Request = hex(
        """
        00 01 00 90  21 12 a4 42  78 ad 34 33  c6 ad 72 c0  29 da 41 2e
        00 1e 00 20  4a 3c f3 8f  ef 69 92 bd  a9 52 c6 78  04 17 da 0f  24 81 94 15  56 9e 60 b2  05 c4 6e 41
                     40 7f 17 04
        00 15 00 29  6f 62 4d 61  74 4a 6f 73  32 41 41 41  43 66 2f 2f  34 39 39 6b  39 35 34 64  36 4f 4c 33
                     34 6f 4c 39  46 53 54 76  79 36 34 73  41 00 00 00
        00 14 00 0b  65 78 61 6d  70 6c 65 2e  6f 72 67 00
        00 1d 00 04  00 02 00 00
        00 1c 00 20  b5 c7 bf 00  5b 6c 52 a2  1c 51 c5 e8  92 f8 19 24  13 62 96 cb  92 7c 43 14  93 09 27 8c
                     c6 51 8e 65
        """)

    /// RFC 8489 Appendix B.1 as published: the header's length (0x9c) counts the header too, and there is no
    /// PASSWORD-ALGORITHM (erratum 6268).
    static let sha256RequestAsPublished = hex(
        """
        00 01 00 9c  21 12 a4 42  78 ad 34 33  c6 ad 72 c0  29 da 41 2e
        00 1e 00 20  4a 3c f3 8f  ef 69 92 bd  a9 52 c6 78  04 17 da 0f  24 81 94 15  56 9e 60 b2  05 c4 6e 41
                     40 7f 17 04
        00 15 00 29  6f 62 4d 61  74 4a 6f 73  32 41 41 41  43 66 2f 2f  34 39 39 6b  39 35 34 64  36 4f 4c 33
                     34 6f 4c 39  46 53 54 76  79 36 34 73  41 00 00 00
        00 14 00 0b  65 78 61 6d  70 6c 65 2e  6f 72 67 00
        00 1c 00 20  e4 68 6c 8f  0e de b5 90  13 e0 70 90  01 0a 93 ef  cc bc cc 54  4c 0a 45 d9  f8 30 aa 6d
                     6f 73 5a 01
        """)

    /// The password of §2.1-§2.3 (short-term).
    static let shortTermPassword = "VOkJxbRl1RmTxUk/WvJxBt"
    /// The username of §2.4 and Appendix B: "マトリックス" (U+30DE U+30C8 U+30EA U+30C3 U+30AF U+30B9).
    static let longTermUsername = "\u{30DE}\u{30C8}\u{30EA}\u{30C3}\u{30AF}\u{30B9}"
    /// The password of §2.4 and Appendix B after OpaqueString/SASLprep: "The\u{00AD}M\u{00AA}tr\u{2168}"
    /// maps to "TheMatrIX".
    static let longTermPassword = "TheMatrIX"

    static func hex(_ text: String) -> [UInt8] {
        let digits = text.unicodeScalars.compactMap { UInt8(String($0), radix: 16) }
        return stride(from: 0, to: digits.count - 1, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }
}
