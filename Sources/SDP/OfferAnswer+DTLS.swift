// DTLS-SRTP in offers and answers: a=fingerprint (RFC 8122), a=setup (RFC 4145, RFC 5763 §5) and a=tls-id
// (RFC 8842), and when a session names the association already in force.

/// What an offer or answer says about DTLS-SRTP for one media section.
struct DTLSDescription {
    var fingerprints: [Fingerprint]
    /// `a=setup`, `nil` when absent.
    var setup: SetupRole?
    var tlsID: TLSID?

    /// The DTLS attributes of `description.media[index]`: fingerprints and setup at media level, else at session
    /// level (RFC 8122 §5, RFC 4145 §4), the tls-id at media level (RFC 8842 §5.1); `nil` without a fingerprint.
    /// - Throws: 400 for a malformed fingerprint, setup or tls-id.
    static func read(_ description: SessionDescription, at index: Int) throws(SDPError) -> DTLSDescription? {
        let media = description.media[index]
        var fingerprints = try media.fingerprints
        if fingerprints.isEmpty { fingerprints = try description.fingerprints }
        guard !fingerprints.isEmpty else { return nil }
        var setup = try media.setup
        if setup == nil { setup = try description.setup }
        return DTLSDescription(fingerprints: fingerprints, setup: setup, tlsID: try media.firstValue(TLSID.self))
    }

    /// Whether it names the association of `current` again (RFC 8842 §5.3): the same tls-id, or, from a peer
    /// without tls-ids, the same certificate fingerprints.
    func namesAssociation(of current: NegotiatedSession.DTLSParameters) -> Bool {
        if let tlsID, let known = current.remoteTLSID { return tlsID == known }
        guard tlsID == nil, current.remoteTLSID == nil else { return false }
        return Set(fingerprints) == Set(current.remoteFingerprints)
    }
}

extension OfferAnswer {
    /// Our tls-id: made once from the key source (unpredictable, RFC 8842 §4), kept until a new association.
    mutating func localTLSID() throws(SDPError) -> TLSID {
        if let dtlsTLSID { return dtlsTLSID }
        guard let bytes = keySource.makeKeyMaterial(count: 32), let made = TLSID(randomBytes: bytes) else {
            throw SDPError(.keySourceFailed, "the key source gave no bytes for a tls-id")
        }
        dtlsTLSID = made
        return made
    }

    /// Asks for a new DTLS association (RFC 8842 §5.2): the next offer carries a new `a=tls-id`, as after a change
    /// of the transport under the association. An ICE restart alone is not one.
    public mutating func renewDTLSAssociation() {
        dtlsTLSID = nil
    }

    /// Makes a re-offer that asks for a new DTLS association (RFC 8842 §5.2): a new `a=tls-id` with
    /// `a=setup:actpass`, in the current hold state. Until it is answered the association in force stays; when the
    /// offer is dropped (`cancelPendingOffer()`: refused, timed out) its tls-id is ours again.
    /// - Throws: `unsupportedTransport` when no DTLS association is in force; `offerPending` or `offerNotAnswered`
    ///   when an offer is outstanding; `keySourceFailed`. Nothing changes when it throws.
    public mutating func makeDTLSRenewalOffer() throws(SDPError) -> SessionDescription {
        guard session?.dtls != nil else {
            throw SDPError(.unsupportedTransport, "no DTLS association is in force to renew")
        }
        let previous = dtlsTLSID
        renewDTLSAssociation()
        do {
            return try makeOffer()
        } catch {
            dtlsTLSID = previous
            throw error
        }
    }

    /// Whether offers carry DTLS-SRTP: as configured, and in re-offers while a DTLS association is in force (an
    /// answerer configured for SDES keeps the keying it answered with, since a `UDP/TLS/RTP/...` profile takes no
    /// `a=crypto`).
    var offersDTLS: Bool {
        configuration.offersDTLS || (session?.dtls != nil && configuration.answersDTLS)
    }

    /// Our fingerprints, `a=setup:actpass` and our tls-id in an offer (RFC 8842 §5.2; actpass in re-offers too,
    /// as JSEP writes them, RFC 8829 §5.2.2: the answerer keeps its role while the tls-id stays).
    mutating func appendDTLSOffer(to media: inout MediaDescription) throws(SDPError) {
        guard !configuration.dtlsFingerprints.isEmpty else {
            throw SDPError(.unsupportedTransport, "DTLS-SRTP needs this side's certificate fingerprint")
        }
        let tlsID = try localTLSID()
        for fingerprint in configuration.dtlsFingerprints { media.append(fingerprint) }
        media.append(SetupRole.actpass)
        media.append(tlsID)
    }

    /// Our role and tls-id answering a DTLS offer (RFC 8842 §5.3): when the offer names the association in force
    /// and lets us keep our role, both stay; otherwise a new association, with a new tls-id of ours if we had
    /// one. Our role is `active` unless the offer says `active` (RFC 5763 §5); an offer without `a=setup` is
    /// taken as `active` (RFC 4145 §4).
    /// - Throws: 488 for `a=setup:holdconn`.
    mutating func answerDTLS(_ offered: DTLSDescription) throws(SDPError) -> NegotiatedSession.DTLSParameters {
        let offeredSetup = offered.setup ?? .active
        guard var setup = offeredSetup.answer else {
            throw SDPError(.unsupportedTransport, "a=setup:holdconn asks for no DTLS association")
        }
        if let current = session?.dtls {
            let keepsRole = offeredSetup == .actpass || offeredSetup.answer == current.setup
            if offered.namesAssociation(of: current), keepsRole, current.localTLSID == dtlsTLSID {
                setup = current.setup
            } else {
                renewDTLSAssociation()
            }
        }
        return NegotiatedSession.DTLSParameters(
            setup: setup, remoteFingerprints: offered.fingerprints, localTLSID: try localTLSID(),
            remoteTLSID: offered.tlsID)
    }

    /// Our fingerprints, role and tls-id in an answer.
    func appendDTLSAnswer(_ parameters: NegotiatedSession.DTLSParameters, to media: inout MediaDescription) {
        for fingerprint in configuration.dtlsFingerprints { media.append(fingerprint) }
        media.append(parameters.setup)
        media.append(parameters.localTLSID)
    }

    /// The DTLS of an answer to our offer (RFC 5763 §5): the answerer's role makes ours. `nil` when the offer
    /// carried no DTLS, or when an opportunistic one (RFC 8643, in `RTP/AVP`) was answered without it.
    /// - Throws: 488 when a DTLS transport, or our `.mandatory` policy, needs the answer's fingerprint, or for
    ///   `a=setup:holdconn`; 400 for malformed DTLS attributes.
    func answeredDTLS(offer: SessionDescription, answer: SessionDescription, at index: Int) throws(SDPError)
        -> NegotiatedSession.DTLSParameters?
    {
        guard let ours = try DTLSDescription.read(offer, at: index), let localTLSID = ours.tlsID else { return nil }
        let answered = answer.media[index]
        guard let theirs = try DTLSDescription.read(answer, at: index) else {
            if offer.media[index].transport.rtpSecurity == .dtls || configuration.srtpPolicy == .mandatory {
                throw SDPError(.srtpRequired, "the answer has no a=fingerprint", line: answered.mediaLine)
            }
            return nil
        }
        let setup: SetupRole
        switch theirs.setup ?? .active {
        case .active: setup = .passive
        // actpass in an answer breaks RFC 5763 §5; taken as passive, the role it leaves open to us.
        case .passive, .actpass: setup = .active
        case .holdconn:
            throw SDPError(.unsupportedTransport, "the answer's a=setup:holdconn sets up no DTLS association")
        }
        return NegotiatedSession.DTLSParameters(
            setup: setup, remoteFingerprints: theirs.fingerprints, localTLSID: localTLSID, remoteTLSID: theirs.tlsID)
    }
}
