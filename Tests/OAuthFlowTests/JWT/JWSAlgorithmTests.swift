import Testing

import OAuthFlow

/// Algorithm names are read from their bytes: the same algorithm for every name, and none for anything else, as a
/// comparison with each name reads them.
@Suite struct JWSAlgorithmTests {
    @Test func namesReadAsComparedWithEachName() {
        var texts = JWSAlgorithm.allCases.map(\.rawValue)
        texts += ["", "none", "rs256", "RS25", "RS2566", "RS257", "XS256", "ES 256", "EDDSA", "EdDSa", "XdDSA", "EXDSA", "EdXSA", "EdDXA", "EdDSX", "EdDS", "EdDSAA", "ES256\u{301}", "Ｒ256", "HS384 "]
        for family in ["RS", "PS", "ES", "HS", "RP", "SS"] {
            for bits in ["256", "384", "512", "255", "385", "521", "128"] { texts.append(family + bits) }
        }
        for text in texts {
            #expect(JWSAlgorithm(rawValue: text) == JWSAlgorithm.allCases.first { $0.rawValue == text }, "\(text.debugDescription)")
        }
    }
}
