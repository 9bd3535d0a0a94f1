import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

/// The grant management modules of the FAPI 2.0 client plans (`FAPI2SPFinalClientTestGrantManagement…`, run when the
/// plan's `grant_management` variant is enabled): the suite's server publishes a grant management endpoint, answers the
/// token request with a `grant_id`, and emulates the grant management API (FAPI Grant Management for OAuth 2.0 §6),
/// played here by ``GrantManagementAPI``.
extension FAPI2ClientPlanTests {
    static let grantPath = "/grants/"

    /// The suite's server side of grant management: the pushed requests it saw, the grant it issued, and its API, where
    /// a grant is queried (GET, §6.4) and revoked (DELETE, §6.5) with a DPoP-bound access token and the API's own nonce;
    /// a revoked grant is unknown (404, §6.6).
    actor GrantManagementAPI {
        let grantID = "gm-" + UUID().uuidString
        let nonce = "gm-nonce-" + UUID().uuidString
        /// Refuse every pushed request with `invalid_grant_id` (GM §5.4).
        let refusesGrantIDs: Bool
        var pushed: [[String: String]] = []
        /// The module's resource server, which knows the access tokens the token endpoint gave.
        var resource: ResourceServer?
        var queries = 0
        var revoked = false
        /// Why a call to the API broke the rules the suite checks, when one did.
        var faults: [String] = []

        init(refusesGrantIDs: Bool = false) { self.refusesGrantIDs = refusesGrantIDs }

        func attach(_ run: Run) { resource = run.resource }

        /// The pushed request's parameters, read out of its request object under Message Signing; `invalid_grant_id`
        /// when the module refuses them, nil to let the simulated provider answer.
        func push(_ request: TransportRequest) -> TransportResponse? {
            var fields = Dictionary(
                FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)), uniquingKeysWith: { first, _ in first })
            if let object = fields["request"] {
                for (name, value) in FAPI2ClientPlanTests.claims(object) { fields[name] = fields[name] ?? value.stringValue }
            }
            pushed.append(fields)
            guard refusesGrantIDs else { return nil }
            let body = #"{"error":"invalid_grant_id","error_description":"the grant_id is not one this server issued to the client"}"#
            return TransportResponse(status: 400, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"], body: Data(body.utf8))
        }

        func answer(_ request: TransportRequest) async -> TransportResponse {
            let authorization = request.headers.first { $0.key.lowercased() == "authorization" }?.value ?? ""
            let parts = authorization.split(separator: " ", maxSplits: 1).map(String.init)
            let issued = await resource?.issued ?? []
            guard parts.count == 2, parts[0].lowercased() == "dpop", issued.contains(parts[1]),
                let proof = request.headers.first(where: { $0.key.lowercased() == "dpop" })?.value
            else { return FAPI2ClientPlanTests.challenge(#"DPoP error="invalid_token""#) }
            let claims = FAPI2ClientPlanTests.claims(proof)
            var target = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
            target?.query = nil
            guard claims["htu"]?.stringValue == target?.url?.absoluteString, claims["htm"]?.stringValue == request.method.rawValue,
                claims["ath"] != nil
            else { return FAPI2ClientPlanTests.challenge(#"DPoP error="invalid_dpop_proof""#) }
            if claims["nonce"]?.stringValue != nonce {
                return FAPI2ClientPlanTests.challenge(#"DPoP error="use_dpop_nonce""#, nonce: nonce)
            }
            // GM 6.3 to 6.5: the grant issued, no body, no query.
            if request.url.path != FAPI2ClientPlanTests.grantPath + grantID { faults.append("a grant it was not issued: \(request.url.path)") }
            if !(request.body ?? Data()).isEmpty { faults.append("a body") }
            if request.url.query != nil { faults.append("a query") }
            switch request.method {
            case _ where revoked:
                return TransportResponse(status: 404)
            case .delete:
                revoked = true
                return TransportResponse(status: 204)
            case .get:
                queries += 1
                let body = #"{"scopes":[{"scope":"openid profile email offline_access"}],"claims":["email"]}"#
                return TransportResponse(
                    status: 200, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"], body: Data(body.utf8))
            default:
                faults.append("method \(request.method.rawValue)")
                return TransportResponse(status: 405)
            }
        }
    }

    /// A module's server with grant management: the endpoint and actions in its metadata, `grant_id` in its token
    /// answers, its API and PAR endpoint played by `api`.
    static func grantManagementServer(_ api: GrantManagementAPI, action: ManagedGrant.Action?, required: Bool = false) -> Server {
        let grantID = api.grantID
        var server = Server(
            metadata: {
                $0["grant_management_endpoint"] = .string("https://simulated.example/grants")
                $0["grant_management_actions_supported"] = .array([.string("create"), .string("merge"), .string("replace")])
                if required { $0["grant_management_action_required"] = .bool(true) }
            },
            tokenAnswer: { $0["grant_id"] = .string(grantID) })
        server.grantManagement = action
        server.intercept = { request in
            if request.url.path == "/par" { return await api.push(request) }
            if request.url.path.hasPrefix(grantPath) { return await api.answer(request) }
            return nil
        }
        return server
    }

    // MARK: - Modules

    @Test(
        "FAPI2SPFinalClientTestGrantManagementHappyPath: a pushed request with grant_management_action=create and no grant_id; the grant_id of the token answer is kept",
        arguments: Plan.allCases)
    func grantManagementHappyPath(_ plan: Plan) async throws {
        let api = GrantManagementAPI()
        let run = try await Self.run(Self.grantManagementServer(api, action: .create), plan: plan)
        await api.attach(run)
        let outcome = try await Self.signsInAndCallsTheResource(run)
        let pushed = try #require(await api.pushed.first)
        #expect(pushed["grant_management_action"] == "create")
        #expect(pushed["grant_id"] == nil, "GM 5.2: no grant_id with create")
        #expect(outcome.tokens.grantID == api.grantID)
        // The grant is kept through a refresh whose answer names it again, and a store keeps it.
        let refreshed = try await run.client.refresh(outcome.tokens)
        #expect(refreshed.grantID == api.grantID)
        let stored = try JSONDecoder().decode(TokenSet.self, from: try JSONEncoder().encode(refreshed))
        #expect(stored.grantID == api.grantID)
    }

    @Test(
        "FAPI2SPFinalClientTestGrantManagementQueryAndRevoke: the grant queried, then revoked, at the grant management API with the DPoP-bound token",
        arguments: Plan.allCases)
    func grantManagementQueryAndRevoke(_ plan: Plan) async throws {
        let api = GrantManagementAPI()
        let run = try await Self.run(Self.grantManagementServer(api, action: .create), plan: plan)
        await api.attach(run)
        let outcome = try await Self.signsInAndCallsTheResource(run)
        let grant = try #require(try await run.client.grant(of: outcome.tokens))
        #expect(grant.id == api.grantID)
        #expect(grant.scopes == ["openid", "profile", "email", "offline_access"] && grant.claims == ["email"])
        #expect(try await run.client.revokeGrant(of: outcome.tokens))
        let (queries, revoked, faults) = (await api.queries, await api.revoked, await api.faults)
        #expect(queries == 1 && revoked)
        #expect(faults.isEmpty, "\(faults)")
        // GM 6.6: the revoked grant is unknown.
        #expect(try await run.client.grant(of: outcome.tokens) == nil)
        #expect(try await run.client.revokeGrant(of: outcome.tokens) == false)
        let calls = run.sent.requests.filter { $0.url.path.hasPrefix(Self.grantPath) }
        #expect(calls.allSatisfy { $0.url.absoluteString == "https://simulated.example/grants/\(api.grantID)" && $0.body == nil })
    }

    @Test(
        "FAPI2SPFinalClientTestGrantManagementInvalidGrantIdFails: a pushed request merging into a grant answered invalid_grant_id; nothing more is sent",
        arguments: Plan.allCases)
    func grantManagementInvalidGrantIdFails(_ plan: Plan) async throws {
        let api = GrantManagementAPI(refusesGrantIDs: true)
        let run = try await Self.run(Self.grantManagementServer(api, action: .merge(grantID: "an-earlier-grant")), plan: plan)
        await api.attach(run)
        let refusal = await #expect(throws: AuthorizationServerError.self) { _ = try await run.client.startAuthorization() }
        #expect(refusal?.error == "invalid_grant_id")
        let pushed = try #require(await api.pushed.first)
        #expect(pushed["grant_management_action"] == "merge" && pushed["grant_id"] == "an-earlier-grant")
        // Neither the authorization endpoint nor the token endpoint: the last request was the refused push.
        #expect(run.sent.requests.last?.url.path == "/par")
        #expect(run.requests(to: "/token").isEmpty)
    }

    // MARK: - Beside the plan

    /// A server that requires an action (`grant_management_action_required`) is sent `create` when the host names none.
    @Test func aServerThatRequiresAnActionIsSentCreate() async throws {
        let api = GrantManagementAPI()
        let run = try await Self.run(Self.grantManagementServer(api, action: nil, required: true))
        await api.attach(run)
        _ = try await Self.signsInAndCallsTheResource(run)
        #expect(await api.pushed.first?["grant_management_action"] == "create")
    }

    /// An action the server does not list, or a grant_id no server issues, is refused before anything is pushed.
    @Test func anActionTheServerDoesNotListIsRefusedBeforeThePush() async throws {
        var server = Self.grantManagementServer(GrantManagementAPI(), action: .replace(grantID: "g-1"))
        server.metadata = { $0["grant_management_actions_supported"] = .array([.string("create")]) }
        let run = try await Self.run(server)
        let refusal = await #expect(throws: FlowError.self) { _ = try await run.client.startAuthorization() }
        #expect(refusal?.code == .grantManagement && refusal?.message.contains("`replace`") == true, "\(String(describing: refusal))")
        #expect(run.requests(to: "/par").isEmpty)

        let spaced = try await Self.run(Self.grantManagementServer(GrantManagementAPI(), action: .merge(grantID: "g 1\r\n")))
        let bad = await #expect(throws: FlowError.self) { _ = try await spaced.client.startAuthorization() }
        #expect(bad?.code == .grantManagement)
        #expect(spaced.requests(to: "/par").isEmpty)
    }

    /// Tokens without a grant cannot be queried, and a grant_id a token answer gives with a space is refused.
    @Test func tokensWithoutAGrantAndABadGrantIDAreRefused() async throws {
        let run = try await Self.run()
        let outcome = try await Self.signsInAndCallsTheResource(run)
        #expect(outcome.tokens.grantID == nil)
        let refusal = await #expect(throws: FlowError.self) { _ = try await run.client.grant(of: outcome.tokens) }
        #expect(refusal?.code == .grantManagement)

        let spaced = try await Self.run(Server(tokenAnswer: { $0["grant_id"] = .string("two words") }))
        let (pending, callback) = try await spaced.callback()
        let bad = await #expect(throws: FlowError.self) { _ = try await spaced.client.finishSignIn(.callback(callback), pending: pending) }
        #expect(bad?.code == .invalidTokenResponse)
    }
}
