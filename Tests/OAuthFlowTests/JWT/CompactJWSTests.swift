import Foundation
import Testing

import OAuthFlow

/// ``CompactJWS`` reads a compact JWS as a JOSE reader must: a member name repeated in any object of the header or the
/// claims is refused (RFC 7515 §5.2, RFC 7519 §7.2).
@Suite struct CompactJWSTests {
    @Test func compactJWSRefusesRepeatedMembersWherever() throws {
        func token(_ header: String, _ claims: String) -> String {
            Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8)) + ".c2ln"
        }
        #expect(throws: JWTError.self) { try CompactJWS(token(#"{"alg":"RS256","alg":"RS256"}"#, "{}")) }
        #expect(throws: JWTError.self) { try CompactJWS(token(#"{"alg":"RS256"}"#, #"{"nonce":"a","nonce":"a"}"#)) }
        #expect(throws: JWTError.self) { try CompactJWS(token(#"{"alg":"RS256"}"#, #"{"x":[{"k":1,"k":2}]}"#)) }
        // The same name in two objects, or as a value, is no repetition.
        let fine = try CompactJWS(token(#"{"alg":"RS256"}"#, #"{"a":{"k":"k"},"b":{"k":["k"]},"k":"a,\"k\":"}"#))
        #expect(fine.claims.count == 3)
    }

    /// An ID token's checks report what the JOSE layer refused as an ``IDTokenError`` of the same code, with the same sentence.
    @Test func anIDTokensChecksReportTheSameFailureAsTheirOwn() throws {
        for token in ["a.b", "e30.e30.c2ln.x", Base64URL.encode(Data(#"{"alg":"RS256","alg":"none"}"#.utf8)) + ".e30.c2ln"] {
            let jose = try #require(throws: JWTError.self) { try CompactJWS(token) }
            let idToken = try #require(throws: IDTokenError.self) { try IDTokenValidator.decodeUnverified(token) }
            #expect(jose.code == .malformed && idToken.code == .malformed)
            #expect(idToken.message == jose.message)
        }
    }
}
