import SIPMessage
import Testing

@testable import SIPUserAgent

/// RFC 3261 §12: dialog creation on both sides, requests inside the dialog, the checks on the ones received.
@Suite struct DialogTests {
    static let invite = """
        INVITE sip:bob@biloxi.example.com SIP/2.0
        Via: SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bK776asdhds
        Max-Forwards: 70
        To: Bob <sip:bob@biloxi.example.com>
        From: Alice <sip:alice@atlanta.example.com>;tag=1928301774
        Call-ID: a84b4c76e66710@pc33.atlanta.example.com
        CSeq: 314159 INVITE
        Contact: <sip:alice@pc33.atlanta.example.com>
        Record-Route: <sip:p2.example.com;lr>, <sip:p1.example.com;lr>
        Content-Length: 0


        """

    static let ringing = """
        SIP/2.0 180 Ringing
        Via: SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bK776asdhds
        To: Bob <sip:bob@biloxi.example.com>;tag=a6c85cf
        From: Alice <sip:alice@atlanta.example.com>;tag=1928301774
        Call-ID: a84b4c76e66710@pc33.atlanta.example.com
        CSeq: 314159 INVITE
        Contact: <sip:bob@192.0.2.4>
        Record-Route: <sip:p2.example.com;lr>, <sip:p1.example.com;lr>
        Content-Length: 0


        """

    @Test func uacDialogFromProvisionalReversesTheRecordRoute() throws {
        let dialog = try Dialog(uac: try request(Self.invite), response: try response(Self.ringing))
        #expect(dialog.state == .early)
        #expect(
            dialog.id
                == DialogID(
                    callID: "a84b4c76e66710@pc33.atlanta.example.com", localTag: "1928301774", remoteTag: "a6c85cf"))
        #expect(dialog.routeSet.map(\.description) == ["<sip:p1.example.com;lr>", "<sip:p2.example.com;lr>"])
        #expect(dialog.remoteTarget.description == "sip:bob@192.0.2.4")
        #expect(dialog.localSequence == 314159)
        #expect(dialog.remoteSequence == nil)
        #expect(dialog.localAddress.tag == nil)
        #expect(dialog.remoteAddress.displayName == "Bob")
        #expect(!dialog.isSecure)
    }

    /// The addresses are kept as their bytes: they read back as the values given, without their tags, and
    /// the requests built from them carry them as they came.
    @Test(arguments: [
        ("Alice <sip:alice@atlanta.example.com>;tag=1928301774", "Alice <sip:alice@atlanta.example.com>"),
        ("\"Bob \\\"B\\\"\" <sip:bob@biloxi.example.com;transport=tcp>;x=1", nil),
        ("<tel:+15551234567>;tag=t;y", "<tel:+15551234567>;y"),
        ("sip:carol@chicago.example.com", nil),
    ])
    func keptAddressesReadBackAsTheyCame(text: String, withoutTag: String?) throws {
        let address = try NameAddress(text)
        let other = try NameAddress("<sip:other@example.com>;tag=o")
        let dialog = Dialog(
            id: DialogID(callID: "c", localTag: "l", remoteTag: "r"), state: .confirmed, localAddress: address,
            remoteAddress: other, remoteTarget: try URI("sip:target@example.com"))
        let expected = try NameAddress(withoutTag ?? text)
        #expect(dialog.localAddress == expected)
        #expect(dialog.localAddress.description == expected.description)
        #expect(dialog.remoteAddress.description == "<sip:other@example.com>")
        let swapped = Dialog(
            id: dialog.id, state: .confirmed, localAddress: other, remoteAddress: address,
            remoteTarget: dialog.remoteTarget)
        #expect(swapped.remoteAddress == expected && swapped.localAddress == dialog.remoteAddress)
        // The remote target is kept with them, and a refresh replaces it alone.
        #expect(dialog.remoteTarget == (try URI("sip:target@example.com")))
        var refreshed = dialog
        refreshed.remoteTarget = try URI("sip:bob@192.0.2.4:5070;transport=tcp")
        #expect(refreshed.remoteTarget.description == "sip:bob@192.0.2.4:5070;transport=tcp")
        #expect(refreshed.localAddress == dialog.localAddress && refreshed.remoteAddress == dialog.remoteAddress)
        #expect(refreshed != dialog)
        refreshed.remoteTarget = try URI("tel:+15551234567")
        #expect(refreshed.remoteTarget == (try URI("tel:+15551234567")))
    }

    /// An address goes into the dialog's bytes straight from the message when its tag is plain and last, else
    /// through `compactedWithoutTag`: either way it is kept as that copy spells it.
    @Test(arguments: [
        "Alice <sip:alice@example.com>;tag=abc", "<sip:alice@example.com>;TAG=abc", "<sip:alice@example.com> ;tag=abc",
        "<sip:alice@example.com>;tag=abc;x=1", "<sip:alice@example.com>;x=1;tag=abc", "<sip:alice@example.com>;tag",
        "sip:alice@example.com;tag=abc", "\"A \\\"B\\\"\" <sip:alice@example.com>", "<tel:+15551234567>;tag=t",
    ])
    func keptAddressesAreSpelledAsTheirCopiesWithoutTag(text: String) throws {
        let address = try NameAddress(text)
        let target = try URI("sip:alice@192.0.2.1:5070;transport=tcp")
        let dialog = Dialog(
            id: DialogID(callID: "c", localTag: "l", remoteTag: "r"), state: .confirmed, localAddress: address,
            remoteAddress: address, remoteTarget: target)
        let expected = address.compactedWithoutTag.description
        #expect(dialog.localAddress.description == expected)
        #expect(dialog.remoteAddress.description == expected)
        #expect(dialog.localAddress.tag == nil && dialog.remoteAddress.tag == nil)
        #expect(dialog.remoteTarget.description == target.description)
        #expect(dialog.id.remoteTag == "r")
    }

    /// A request's From and To are written from the kept bytes with `;tag=` appended: byte for byte what setting
    /// the tag on the address read back writes, for every form an address is kept in and every kind of tag.
    @Test(arguments: [
        "Alice <sip:alice@example.com>;tag=abc", "<sip:alice@example.com>;TAG=abc", "<sip:alice@example.com> ;tag=abc",
        "<sip:alice@example.com>;tag=abc;x=1", "<sip:alice@example.com>;x=1;tag=abc", "<sip:alice@example.com>;tag",
        "sip:alice@example.com;tag=abc", "sip:alice@example.com", "\"A \\\"B\\\"\" <sip:alice@example.com>",
        "<tel:+15551234567>;tag=t", "Bob  Smith <sip:bob@example.com;transport=tcp>;x", "<sip:a@b>;x=\"q;tag=1\"",
    ])
    func requestsCarryTheAddressesWithTheirTags(text: String) throws {
        let address = try NameAddress(text)
        for (localTag, remoteTag) in [("l-1.x", "r_2~'`"), ("l", ""), ("bad tag", "r"), ("l", "quo\"ted"), ("", "r")] {
            var dialog = Dialog(
                id: DialogID(callID: "c", localTag: localTag, remoteTag: remoteTag), state: .confirmed,
                localAddress: address, remoteAddress: address, remoteTarget: try URI("sip:t@example.com"))
            let request = dialog.makeRequest(.bye)
            var from = dialog.localAddress
            from.tag = localTag
            var to = dialog.remoteAddress
            if !remoteTag.isEmpty { to.tag = remoteTag }
            #expect(request.headerFields[.from] == from.description, "\(text) \(localTag)")
            #expect(request.headerFields[.to] == to.description, "\(text) \(remoteTag)")
        }
    }

    @Test func keptAddressesCompareAsAddressesNotAsBytes() throws {
        func dialog(_ local: String) throws -> Dialog {
            Dialog(
                id: DialogID(callID: "c", localTag: "l", remoteTag: "r"), state: .confirmed,
                localAddress: try NameAddress(local), remoteAddress: try NameAddress("<sip:b@example.com>;tag=x"),
                remoteTarget: try URI("sip:b@example.com"))
        }
        let quoted = try dialog("\"Alice\" <sip:alice@example.com>")
        let plain = try dialog("Alice <sip:alice@example.com>;tag=t")
        #expect(quoted == plain)
        #expect(quoted.hashValue == plain.hashValue)
        #expect(try quoted != dialog("Alice <sip:alice@example.org>"))
    }

    @Test func uacDialogFromSuccessIsConfirmed() throws {
        let ok = Self.ringing.replacingOccurrences(of: "180 Ringing", with: "200 OK")
        let dialog = try Dialog(uac: try request(Self.invite), response: try response(ok))
        #expect(dialog.state == .confirmed)
    }

    @Test func responseWithoutTagOrSuccessWithoutContactMakesNoDialog() throws {
        let untagged = Self.ringing.replacingOccurrences(of: ";tag=a6c85cf", with: "")
        #expect(throws: DialogError.self) {
            try Dialog(uac: try request(Self.invite), response: try response(untagged))
        }
        let noContact = Self.ringing.replacingOccurrences(of: "180 Ringing", with: "200 OK")
            .replacingOccurrences(of: "Contact: <sip:bob@192.0.2.4>\n", with: "")
        do {
            _ = try Dialog(uac: try request(Self.invite), response: try response(noContact))
            Issue.record("a 2xx without Contact made a dialog")
        } catch let error as DialogError {
            #expect(error.code == .missingContact)
        }
        // A provisional response without Contact keeps the Request-URI as the target for now.
        let provisional = Self.ringing.replacingOccurrences(of: "Contact: <sip:bob@192.0.2.4>\n", with: "")
        let early = try Dialog(uac: try request(Self.invite), response: try response(provisional))
        #expect(early.remoteTarget.description == "sip:bob@biloxi.example.com")
    }

    @Test func uasDialogKeepsTheRecordRouteInOrder() throws {
        let dialog = try Dialog(uas: try request(Self.invite), localTag: "a6c85cf")
        #expect(dialog.id.localTag == "a6c85cf")
        #expect(dialog.id.remoteTag == "1928301774")
        #expect(dialog.routeSet.map(\.description) == ["<sip:p2.example.com;lr>", "<sip:p1.example.com;lr>"])
        #expect(dialog.remoteTarget.description == "sip:alice@pc33.atlanta.example.com")
        #expect(dialog.remoteSequence == 314159)
        #expect(dialog.localSequence == nil)
        #expect(dialog.localAddress.uri.description == "sip:bob@biloxi.example.com")
    }

    @Test func uasDialogSharesTheSessionsCallID() throws {
        let invite = try request(Self.invite)
        // The session's copy, as it reads it; a different value is not taken.
        let callID = try #require(try invite.callID)
        let shared = try Dialog(uas: invite, localTag: "a6c85cf", sharing: callID)
        #expect(storage(shared.id.callID) == storage(callID))
        #expect(storage(try Dialog(uas: invite, localTag: "a6c85cf").id.callID) != storage(callID))
        let other = try Dialog(uas: invite, localTag: "a6c85cf", sharing: "other@example.com")
        #expect(other.id.callID == "a84b4c76e66710@pc33.atlanta.example.com")
    }

    @Test func dialogKeepsTheRemoteTagInTheArrayOfItsAddresses() throws {
        let invite = try request(Self.invite.replacingOccurrences(of: "tag=1928301774", with: "tag=4242SIPpTag0012345"))
        var dialog = try Dialog(uas: invite, localTag: "a6c85cf")
        #expect(dialog.id.remoteTag == "4242SIPpTag0012345")
        // The tag's bytes are the addresses' own: the id holds no array of its own.
        let kept = try #require(dialog.addresses.remoteTag)
        #expect(dialog.id.remote.withBytes { $0.baseAddress } == kept.withBytes { $0.baseAddress })
        // It equals (and hashes as) the id made from strings, and finds the dialog in a table keyed by either.
        let made = DialogID(
            callID: "a84b4c76e66710@pc33.atlanta.example.com", localTag: "a6c85cf", remoteTag: "4242SIPpTag0012345")
        #expect(dialog.id == made)
        #expect(dialog.id.hashValue == made.hashValue)
        var table = DialogTable<Int>()
        table.insert(1, for: dialog.id)
        #expect(table[made] == 1)
        // A target refresh rewrites the addresses: the tag and the addresses read back unchanged.
        dialog.remoteTarget = try URI("sip:alice@192.0.2.99:5070")
        #expect(dialog.id.remoteTag == "4242SIPpTag0012345")
        #expect(dialog.addresses.remoteTag?.string == "4242SIPpTag0012345")
        #expect(dialog.remoteTarget.description == "sip:alice@192.0.2.99:5070")
        #expect(dialog.remoteAddress.uri.description == "sip:alice@atlanta.example.com")
        #expect(dialog.localAddress.uri.description == "sip:bob@biloxi.example.com")
    }

    /// Where a string's bytes are (a Call-ID of more than 15 bytes has heap storage of its own).
    private func storage(_ string: String) -> UnsafeRawPointer? {
        var string = string
        return string.withUTF8 { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func uasDialogNeedsContactAndToleratesAMissingFromTag() throws {
        let noContact = Self.invite.replacingOccurrences(
            of: "Contact: <sip:alice@pc33.atlanta.example.com>\n", with: "")
        do {
            _ = try Dialog(uas: try request(noContact), localTag: "x")
            Issue.record("an INVITE without Contact made a dialog")
        } catch let error as DialogError {
            #expect(error.status == 400)
        }
        // RFC 2543 peers send no From tag: the remote tag is empty (§12.2.2).
        let legacy = Self.invite.replacingOccurrences(of: ";tag=1928301774", with: "")
        #expect(try Dialog(uas: try request(legacy), localTag: "x").id.remoteTag == "")
    }

    @Test func sipsRequestURIMakesASecureDialog() throws {
        let secure = Self.invite.replacingOccurrences(of: "INVITE sip:", with: "INVITE sips:")
        #expect(try Dialog(uas: try request(secure), localTag: "x").isSecure)
    }

    @Test func looseRoutingKeepsTheTargetInTheRequestURI() throws {
        var dialog = try Dialog(uac: try request(Self.invite), response: try response(Self.ringing))
        let bye = dialog.makeRequest(.bye)
        #expect(bye.uri.description == "sip:bob@192.0.2.4")
        #expect(bye.headerFields[values: .route] == ["<sip:p1.example.com;lr>", "<sip:p2.example.com;lr>"])
        #expect(bye.headerFields[.cseq] == "314160 BYE")
        #expect(bye.headerFields[.maxForwards] == "70")
        #expect(try bye.from?.tag == "1928301774")
        #expect(try bye.to?.tag == "a6c85cf")
        #expect(bye.headerFields[.callID] == "a84b4c76e66710@pc33.atlanta.example.com")
        #expect(dialog.nextHop.description == "sip:p1.example.com;lr")
        #expect(dialog.makeRequest(.info).headerFields[.cseq] == "314161 INFO")
    }

    @Test func strictRoutingPutsTheFirstRouteInTheRequestURI() throws {
        let strict = Self.ringing.replacingOccurrences(
            of: "Record-Route: <sip:p2.example.com;lr>, <sip:p1.example.com;lr>",
            with: "Record-Route: <sip:p2.example.com;lr>, <sip:p1.example.com;method=INVITE>")
        var dialog = try Dialog(uac: try request(Self.invite), response: try response(strict))
        let bye = dialog.makeRequest(.bye)
        // §12.2.1.1: the strict router is the Request-URI (without `method`), the remote target is the last Route.
        #expect(bye.uri.description == "sip:p1.example.com")
        #expect(bye.headerFields[values: .route] == ["<sip:p2.example.com;lr>", "<sip:bob@192.0.2.4>"])
        #expect(dialog.nextHop.description == "sip:p1.example.com;method=INVITE")
    }

    @Test func emptyRouteSetSendsToTheTarget() throws {
        let direct = Self.ringing.replacingOccurrences(
            of: "Record-Route: <sip:p2.example.com;lr>, <sip:p1.example.com;lr>\n", with: "")
        var dialog = try Dialog(uac: try request(Self.invite), response: try response(direct))
        let bye = dialog.makeRequest(.bye)
        #expect(bye.uri.description == "sip:bob@192.0.2.4")
        #expect(!bye.headerFields.contains(.route))
        let ack = dialog.makeACK(sequenceNumber: 314159)
        #expect(ack.headerFields[.cseq] == "314159 ACK")
        #expect(ack.method == .ack)
    }

    @Test func lowerRemoteCSeqIsRefusedWith500() throws {
        var dialog = try Dialog(uas: try request(Self.invite), localTag: "a6c85cf")
        let lower = try request(
            Self.invite.replacingOccurrences(of: "CSeq: 314159 INVITE", with: "CSeq: 314158 INFO")
                .replacingOccurrences(of: "INVITE sip:", with: "INFO sip:"))
        do {
            try dialog.receive(lower)
            Issue.record("a lower CSeq was taken")
        } catch {
            #expect(error.status == 500)
            #expect(error.code == .sequenceOutOfOrder)
        }
        #expect(dialog.remoteSequence == 314159)
        // ACK carries the INVITE's number and is not checked.
        let ack = try request(
            Self.invite.replacingOccurrences(of: "CSeq: 314159 INVITE", with: "CSeq: 1 ACK")
                .replacingOccurrences(of: "INVITE sip:", with: "ACK sip:"))
        try dialog.receive(ack)
        #expect(dialog.remoteSequence == 314159)
    }

    @Test func reinviteRefreshesTheTargetAndInfoDoesNot() throws {
        var dialog = try Dialog(uas: try request(Self.invite), localTag: "a6c85cf")
        let info = try request(
            Self.invite.replacingOccurrences(of: "CSeq: 314159 INVITE", with: "CSeq: 314160 INFO")
                .replacingOccurrences(of: "INVITE sip:", with: "INFO sip:")
                .replacingOccurrences(of: "pc33.atlanta.example.com>", with: "192.0.2.99>"))
        try dialog.receive(info)
        #expect(dialog.remoteTarget.description == "sip:alice@pc33.atlanta.example.com")
        #expect(dialog.remoteSequence == 314160)
        let reinvite = try request(
            Self.invite.replacingOccurrences(of: "CSeq: 314159 INVITE", with: "CSeq: 314161 INVITE")
                .replacingOccurrences(
                    of: "Contact: <sip:alice@pc33.atlanta.example.com>", with: "Contact: <sip:alice@192.0.2.99>"))
        try dialog.receive(reinvite)
        #expect(dialog.remoteTarget.description == "sip:alice@192.0.2.99")
        let noContact = try request(
            Self.invite.replacingOccurrences(of: "CSeq: 314159 INVITE", with: "CSeq: 314162 INVITE")
                .replacingOccurrences(of: "Contact: <sip:alice@pc33.atlanta.example.com>\n", with: ""))
        #expect(throws: DialogError.self) { try dialog.receive(noContact) }
    }

    @Test func successToUpdateRefreshesTheTargetAndConfirmRecomputesTheRouteSet() throws {
        var dialog = try Dialog(uac: try request(Self.invite), response: try response(Self.ringing))
        let ok = try response(
            Self.ringing.replacingOccurrences(of: "180 Ringing", with: "200 OK")
                .replacingOccurrences(of: "<sip:bob@192.0.2.4>", with: "<sip:bob@192.0.2.5>")
                .replacingOccurrences(of: ", <sip:p1.example.com;lr>", with: ""))
        dialog.confirm(with: ok)
        #expect(dialog.state == .confirmed)
        #expect(dialog.remoteTarget.description == "sip:bob@192.0.2.5")
        #expect(dialog.routeSet.map(\.description) == ["<sip:p2.example.com;lr>"])
        let updated = try response(
            Self.ringing.replacingOccurrences(of: "180 Ringing", with: "200 OK")
                .replacingOccurrences(of: "<sip:bob@192.0.2.4>", with: "<sip:bob@192.0.2.6>"))
        dialog.receiveSuccess(updated, to: .info)
        #expect(dialog.remoteTarget.description == "sip:bob@192.0.2.5")
        dialog.receiveSuccess(updated, to: .update)
        #expect(dialog.remoteTarget.description == "sip:bob@192.0.2.6")
    }
}
