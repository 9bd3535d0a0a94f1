import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow
import OAuthFlowFiles

extension Protection {
    /// What a JOSE reader must refuse though a signature verifies: repeated members (RFC 7515 §5.2,
    /// RFC 7519 §7.2), NumericDates that are not numbers and string claims that are not strings
    /// (RFC 7519 §2, §4.1), and keys whose `key_ops` do not include `verify` (RFC 7517 §4.3).
    @Suite struct JOSEStrictnessTests {
        let clock = StoppedClock()
        let server = InProcessAuthorizationServer()
        let es: ProtectionKey

        init() async throws {
            es = try await .es256("es-1")
            server.serveKeys([es])
        }

        func api(settings: ProtectedResource.Settings = ProtectionSetup.settings()) throws -> ProtectedResource {
            try ProtectedResource(
                providers: [ProtectionSetup.provider(accessTokens: ["profile": "rfc9068"])], settings: settings, environment: OAuthEnvironment(transport: server, clock: clock))
        }

        var seconds: Int { Int(clock.now().timeIntervalSince1970) }

        /// Valid RFC 9068 claims as JSON text, with `extra` members appended as written.
        func claimsText(_ extra: String = "", exp: String? = nil) -> String {
            let exp = exp ?? "\(seconds + 600)"
            return #"{"iss":"\#(ProtectionToken.issuer)","sub":"user-1","aud":"\#(ProtectionToken.resource)","client_id":"client-1","#
                + #""iat":\#(seconds),"exp":\#(exp),"jti":"j-1","scope":"notes:read""# + extra + "}"
        }

        let header = #"{"alg":"ES256","kid":"es-1","typ":"at+jwt"}"#

        /// A JWKS naming one `kid` twice: the first key is the one used, and a token it does not verify is told why, not
        /// only that its signature does not verify.
        @Test func aKeyIDTheJWKSRepeatsIsNamedInTheRefusal() async throws {
            let other = try await ProtectionKey.es256("es-1")
            server.serveKeys([other, es])
            let token = try es.sign(headerText: header, claimsText: claimsText())
            let refusal = await denial(try api(), bearer: token)
            expectRefused(refusal, .invalidToken, status: 401, token: token)
            #expect(refusal?.reason.contains("more than once") == true, "\(refusal?.reason ?? "accepted")")
        }

        @Test func theBaselineIsAccepted() async throws {
            expectAccepted(await denial(try api(), bearer: try es.sign(headerText: header, claimsText: claimsText())))
        }

        @Test(arguments: [
            #","aud":"https://other.example.com""#,
            #","exp":1"#,
            #","iss":"https://evil.example.com""#,
            #","a\u0075d":"https://other.example.com""#,
            #","cnf":{"jkt":"a","jkt":"b"}"#,
        ])
        func aClaimsSetWithARepeatedMemberIsRefused(extra: String) async throws {
            let token = try es.sign(headerText: header, claimsText: claimsText(extra))
            let refusal = await denial(try api(), bearer: token)
            expectRefused(refusal, .invalidToken, status: 401, token: token)
            #expect(refusal?.reason.contains("more than once") == true, "\(refusal?.reason ?? "accepted")")
        }

        @Test func aHeaderWithARepeatedAlgIsRefused() async throws {
            let token = try es.sign(headerText: #"{"alg":"ES256","kid":"es-1","typ":"at+jwt","alg":"none"}"#, claimsText: claimsText())
            let refusal = await denial(try api(), bearer: token)
            expectRefused(refusal, .invalidToken, status: 401, token: token)
            #expect(refusal?.reason.contains("`alg`") == true, "\(refusal?.reason ?? "accepted")")
        }

        @Test(arguments: [#""0x1p40""#, #""9999999999""#, "true", "null", "[9999999999]"])
        func anExpThatIsNotANumberIsRefused(exp: String) async throws {
            let token = try es.sign(headerText: header, claimsText: claimsText(exp: exp))
            expectRefused(await denial(try api(), bearer: token), .invalidToken, status: 401, token: token)
        }

        @Test func nbfAndIatGivenAsStringsAreRefused() async throws {
            for extra in [#","nbf":"0""#] {
                let token = try es.sign(headerText: header, claimsText: claimsText(extra))
                expectRefused(await denial(try api(), bearer: token), .invalidToken, status: 401, token: token)
            }
            let stringIssuedAt = claimsText().replacingOccurrences(of: #""iat":\#(seconds)"#, with: #""iat":"\#(seconds)""#)
            let token = try es.sign(headerText: header, claimsText: stringIssuedAt)
            expectRefused(await denial(try api(), bearer: token), .invalidToken, status: 401, token: token)
        }

        @Test func aNumericClientIDIsRefusedEvenWithAnAzp() async throws {
            let text = claimsText(#","azp":"client-1""#).replacingOccurrences(of: #""client_id":"client-1""#, with: #""client_id":12345"#)
            let token = try es.sign(headerText: header, claimsText: text)
            let refusal = await denial(try api(), bearer: token)
            expectRefused(refusal, .invalidToken, status: 401, token: token)
            #expect(refusal?.reason.contains("client_id") == true, "\(refusal?.reason ?? "accepted")")
        }

        @Test func aKeyWhoseKeyOpsLackVerifyVerifiesNothing() async throws {
            var entry = es.jwk()
            entry["use"] = nil
            let keys = #"{"keys":[{"# + entry.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",")
                + #","key_ops":["encrypt"]}]}"#
            server.serve(keys, at: ProtectionToken.issuer + "/jwks")
            let token = try es.sign(headerText: header, claimsText: claimsText())
            expectRefused(await denial(try api(), bearer: token), .invalidToken, status: 401, token: token)
            // The same key with `verify` among its operations verifies.
            server.serve(keys.replacingOccurrences(of: #"["encrypt"]"#, with: #"["encrypt","verify"]"#), at: ProtectionToken.issuer + "/jwks")
            expectAccepted(await denial(try api(), bearer: token))
        }

        /// An empty audience would accept a token whose `aud` is "": refused wherever it is set.
        @Test func anEmptyAudienceIsRefusedWhereverItIsSet() async throws {
            for empty in ["", "  "] {
                var settings = ProtectionSetup.settings()
                settings.audience = empty
                #expect(throws: ProviderError.self) { try api(settings: settings) }
            }
            for yaml in [#""""#, #"" ""#] {
                do {
                    _ = try ProtectionSetup.provider(accessTokens: ["profile": "rfc9068", "audience": yaml])
                    Issue.record("an empty access_tokens.audience was accepted")
                } catch {
                    #expect("\(error)".contains("access_tokens.audience") && "\(error)".contains("is empty"), "\(error)")
                    #expect(!"\(error)".contains("`{}`"), "\(error)")
                }
            }
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            try TestDescriptor(id: "example").yaml.write(to: directory.url.appendingPathComponent("example.yaml"), atomically: true, encoding: .utf8)
            let oauth = OAuth(.init(providerDirectories: [directory.url], includeBundledProviders: false))
            await #expect(throws: (any Error).self) {
                _ = try await oauth.verifyAccessToken(Secret(try es.sign(headerText: header, claimsText: claimsText())), issuedBy: "example", audience: "")
            }
        }

        /// The member the one strict reader finds given twice; nil when it reads the text or refuses it for another reason.
        static func repeated(_ text: String) -> String? {
            do {
                _ = try CompactJSON.read(Array(text.utf8))
                return nil
            } catch {
                if case let .repeatedMember(name) = error { return name }
                return nil
            }
        }

        @Test func memberNamesAreComparedDecoded() {
            #expect(Self.repeated(#"{"alg":1,"\u0061lg":2}"#) == "alg")
            #expect(Self.repeated(#"{"\ud83d\ude00":1,"😀":2}"#) == "😀")
            #expect(Self.repeated(#"{"a\"b":1,"a\\b":2,"ab":3}"#) == nil)
            #expect(Self.repeated(#"[{"a":1},{"a":2}]"#) == nil)
            #expect(Self.repeated(#"{"a":{"b":1},"c":{"b":2,"b":3}}"#) == "b")
            // A token's header is hostile input: truncated escapes, lone surrogates, stray brackets never crash the reader.
            let alphabet = Array(#"{}[]:,"\u0dDa1 "#.utf8) + [0xC3, 0xA9, 0xFF, 0x00]
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<20_000 {
                let bytes = (0..<Int.random(in: 0...32, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
                _ = try? CompactJSON.read(bytes)
            }
        }
    }
}
