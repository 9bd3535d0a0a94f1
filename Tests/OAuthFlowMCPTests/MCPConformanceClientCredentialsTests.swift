import Crypto
import Foundation
import OAuthFlow
import Testing

import OAuthFlowMCPAuth

/// The suite's client credentials extension scenarios (`io.modelcontextprotocol/oauth-client-credentials`):
/// `auth/client-credentials-basic` and `auth/client-credentials-jwt`. The suite's client is given the credentials in its
/// context; here they are the client given for the issuer, with ``MCPAuthorization/Configuration/clientCredentials``.
@Suite struct MCPConformanceClientCredentialsTests {
    typealias Scenarios = MCPConformanceTests
    static let clientID = "conformance-test-client"
    static let grant = "client_credentials"

    /// The scopes of a token request's `scope`.
    static func scopes(_ body: [String: String]) -> [String] { (body["scope"] ?? "").split(separator: " ").map(String.init) }

    @Test("auth/client-credentials-basic", arguments: Scenarios.bothWires)
    func clientCredentialsBasic(_ version: ConformanceSpecVersion) async {
        let run = ConformanceRun(version: version)
        var auth = MockAuthServerOptions()
        auth.grantTypesSupported = [Self.grant]
        auth.tokenEndpointAuthMethodsSupported = ["client_secret_basic"]
        auth.onTokenRequest = { [run] body, authorization in
            guard body["grant_type"] == Self.grant else {
                run.record("client-credentials-grant-type", .failure, body["grant_type"] ?? "absent")
                return .error("unsupported_grant_type", "Only client_credentials grant is supported")
            }
            guard let authorization, authorization.hasPrefix("Basic "),
                let decoded = Data(base64Encoded: String(authorization.dropFirst(6))).map({ String(decoding: $0, as: UTF8.self) })
            else {
                run.record("client-credentials-basic-auth", .failure, "no Basic header")
                return .error("invalid_client", "Missing or invalid Authorization header", status: 401)
            }
            let parts = decoded.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0] == Self.clientID, parts[1] == "conformance-test-secret" else {
                run.record("client-credentials-basic-auth", .failure, "client \(parts.first ?? "")")
                return .error("invalid_client", "Invalid client credentials", status: 401)
            }
            run.record("client-credentials-basic-auth", .success)
            return .token("cc-token-\(run.milliseconds())", scopes: Self.scopes(body))
        }
        let (_, _, client) = Scenarios.world(run, auth: auth) {
            $0.clients = [Scenarios.authOrigin: ClientSettings(clientID: Self.clientID, secret: Secret("conformance-test-secret"))]
            $0.clientCredentials = true
        }
        let error = await client.runEverything()
        if run.checks("client-credentials-basic-auth").isEmpty { run.record("client-credentials-basic-auth", .failure, "no token request") }
        run.expectPassed(["client-credentials-basic-auth", "valid-bearer-token"], clientError: error)
        #expect(client.browser.opened.values.isEmpty)
    }

    @Test("auth/client-credentials-jwt", arguments: Scenarios.bothWires)
    func clientCredentialsJWT(_ version: ConformanceSpecVersion) async throws {
        let run = ConformanceRun(version: version)
        let key = P256.Signing.PrivateKey()
        var auth = MockAuthServerOptions()
        auth.grantTypesSupported = [Self.grant]
        auth.tokenEndpointAuthMethodsSupported = ["private_key_jwt"]
        auth.tokenEndpointAuthSigningAlgValuesSupported = ["ES256"]
        let origin = Scenarios.authOrigin
        auth.onTokenRequest = { [run] body, _ in
            guard body["grant_type"] == Self.grant else {
                run.record("client-credentials-grant-type", .failure, body["grant_type"] ?? "absent")
                return .error("unsupported_grant_type", "Only client_credentials grant is supported")
            }
            guard body["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" else {
                run.record("client-credentials-assertion-type", .failure, body["client_assertion_type"] ?? "absent")
                return .error("invalid_client", "Invalid client_assertion_type", status: 401)
            }
            guard let claims = Self.verified(body["client_assertion"] ?? "", key: key.publicKey, audience: origin) else {
                run.record("client-credentials-jwt-verified", .failure, "JWT verification failed")
                return .error("invalid_client", "JWT verification failed", status: 401)
            }
            guard claims["iss"]?.stringValue == Self.clientID else {
                run.record("client-credentials-jwt-iss", .failure, claims["iss"]?.stringValue ?? "absent")
                return .error("invalid_client", "Invalid iss", status: 401)
            }
            guard claims["sub"]?.stringValue == Self.clientID else {
                run.record("client-credentials-jwt-sub", .failure, claims["sub"]?.stringValue ?? "absent")
                return .error("invalid_client", "Invalid sub", status: 401)
            }
            run.record("client-credentials-jwt-verified", .success)
            return .token("cc-token-\(run.milliseconds())", scopes: Self.scopes(body))
        }
        let signingKey = try ClientConfiguration.SigningKey(pem: key.pemRepresentation, algorithm: .es256)
        let (_, _, client) = Scenarios.world(run, auth: auth) {
            $0.clients = [Scenarios.authOrigin: ClientSettings(clientID: Self.clientID, authMethod: .privateKeyJWT, signingKey: signingKey)]
            $0.clientCredentials = true
        }
        let error = await client.runEverything()
        if run.checks("client-credentials-jwt-verified").isEmpty {
            run.record("client-credentials-jwt-verified", .failure, "did not make a client_credentials token request")
        }
        run.expectPassed(["client-credentials-jwt-verified", "valid-bearer-token"], clientError: error)
    }

    /// `jose.jwtVerify` as the scenario calls it: the signature, `aud` naming the origin (one trailing slash tolerated),
    /// `exp` and `nbf` when present, 30 seconds' tolerance.
    static func verified(_ jwt: String, key: P256.Signing.PublicKey, audience origin: String) -> [String: JSONValue]? {
        guard let (header, claims, signature, input) = MockJWT.decode(jwt), header["alg"]?.stringValue == "ES256",
            let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature), key.isValidSignature(ecdsa, for: input)
        else { return nil }
        let audiences: [String]
        switch claims["aud"] {
        case let .string(one)?: audiences = [one]
        case let .array(many)?: audiences = many.compactMap(\.stringValue)
        default: return nil
        }
        guard audiences.contains(origin) || audiences.contains(origin + "/") else { return nil }
        let now = Date().timeIntervalSince1970
        if case let .number(exp)? = claims["exp"], exp < now - 30 { return nil }
        if case let .number(nbf)? = claims["nbf"], nbf > now + 30 { return nil }
        return claims
    }
}
