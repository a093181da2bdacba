// The WebRTC profile's attributes besides DTLS (RFC 8829 §5.2.1): a=mid in a BUNDLE group (RFC 9143) with the
// MID header extension (RFC 8285), and reduced-size RTCP (RFC 5506), for the one audio stream.

extension OfferAnswer {
    /// The identifier our offers give the MID header extension.
    static let offeredMIDExtensionID: UInt16 = 1

    /// `a=mid` (the previous offer's, else `0`), the MID `a=extmap` and `a=rtcp-rsize` in a WebRTC-profile offer.
    func appendWebRTCOffer(to media: inout MediaDescription, previous: MediaDescription?) {
        let mid = (try? previous?.mid) ?? "0"
        media.append(MediaID(mid))
        media.append(ExtensionMap(identifier: Self.offeredMIDExtensionID, uri: ExtensionMap.midURI))
        media.attributes.append(.rtcpReducedSize)
    }

    /// `a=group:BUNDLE <mid>`: the one audio stream bundled (RFC 9143 §7.2, §7.3).
    static func bundleGroup(_ mid: String) -> Attribute {
        Attribute(
            GroupAttribute.attributeName, GroupAttribute(semantics: .bundle, identificationTags: [mid]).attributeValue)
    }

    /// Whether `description` puts the stream tagged `mid` in a BUNDLE group (malformed groups are ignored).
    static func bundles(_ mid: String?, in description: SessionDescription) -> Bool {
        guard let mid else { return false }
        return description.attributes(named: GroupAttribute.attributeName).contains { attribute in
            guard let group = try? attribute.typedValue(GroupAttribute.self) else { return false }
            return group.semantics.matches(.bundle) && group.identificationTags.contains(mid)
        }
    }

    /// The MID header extension a section maps, if it does (malformed `a=extmap` lines are ignored: RFC 8285
    /// extensions this side does not use are only read past).
    static func midExtension(of media: MediaDescription) -> ExtensionMap? {
        for attribute in media.attributes(named: ExtensionMap.attributeName) {
            guard let map = try? attribute.typedValue(ExtensionMap.self), map.uri == ExtensionMap.midURI,
                (1...255).contains(map.identifier)
            else { continue }
            return map
        }
        return nil
    }

    /// What an answer's WebRTC attributes agree to.
    struct WebRTCAgreement {
        var isReducedSizeRTCP = false
        var isBundled = false
        var midExtensionID: UInt16?
    }

    /// The WebRTC attributes of a DTLS answer to `offered`, echoing what the offer asks for: `a=rtcp-rsize`, the
    /// BUNDLE group (written at session level by `buildAnswer(to:)`) and the MID extension in it.
    static func answerWebRTC(
        _ offered: MediaDescription, in offer: SessionDescription, mid: String?, into answer: inout MediaDescription
    ) -> WebRTCAgreement {
        var agreement = WebRTCAgreement()
        if offered.allowsReducedSizeRTCP {
            answer.attributes.append(.rtcpReducedSize)
            agreement.isReducedSizeRTCP = true
        }
        guard bundles(mid, in: offer) else { return agreement }
        agreement.isBundled = true
        if let map = midExtension(of: offered) {
            answer.append(ExtensionMap(identifier: map.identifier, uri: ExtensionMap.midURI))
            agreement.midExtensionID = map.identifier
        }
        return agreement
    }

    /// The WebRTC attributes both sides agreed on, from our offer and its answer.
    static func negotiateWebRTC(
        offer: SessionDescription, answer: SessionDescription, at index: Int, into session: inout NegotiatedSession
    ) {
        let offered = offer.media[index]
        let answered = answer.media[index]
        session.isReducedSizeRTCP = offered.allowsReducedSizeRTCP && answered.allowsReducedSizeRTCP
        let mid = try? offered.mid
        session.mediaID = mid
        session.isBundled = bundles(mid, in: offer) && bundles(mid, in: answer)
        if session.isBundled, midExtension(of: offered) != nil, let answeredMap = midExtension(of: answered) {
            session.midExtensionID = answeredMap.identifier
        }
    }
}
