import Foundation
import OAuthFlow
import OAuthFlowLoopback
import OAuthFlowMCPAuth
import OAuthFlowTestSupport
import Testing

/// The suite's client (`everything-client.ts`), played by an ``MCPAuthorization``: it connects (`initialize` at the
/// stateful versions, `server/discover` at the stateless one), lists the tools and calls `test-tool`, answering each 401
/// and 403 through the authorization as the MCP SDK's transport does (three attempts a request), every request with the
/// authorization's header and, for a DPoP-bound session, its proof (what `MCPAuthorizer.requestModifier` adds).
final class ConformanceClient: @unchecked Sendable {
    /// The CIMD URL the suite's client uses where the authorization server takes client ID metadata documents.
    static let clientMetadataDocument = URL(string: "https://conformance-test.local/client-metadata.json")!

    let run: ConformanceRun
    let endpoint: URL
    let authorization: MCPAuthorization
    let browser: ConformanceBrowser
    private var nextID = 1

    init(
        run: ConformanceRun, endpoint: URL, store: any TokenStore = InMemoryTokenStore(), clock: (any DateClock)? = nil,
        _ change: (inout MCPAuthorization.Configuration) -> Void = { _ in }
    ) {
        self.run = run
        self.endpoint = endpoint
        let browser = ConformanceBrowser(run: run)
        self.browser = browser
        let environment = clock.map { OAuthEnvironment(transport: run.transport, clock: $0) } ?? OAuthEnvironment(transport: run.transport)
        var configuration = MCPAuthorization.Configuration(
            store: store, browser: browser, environment: environment,
            clientMetadataDocument: Self.clientMetadataDocument, clientName: "conformance-everything-client")
        // A bound against a hang, far above a sign-in on a loaded machine (16 tests at once beside CPU-heavy ones took
        // over 8 s here): no scenario ends by this timeout.
        configuration.signInTimeout = .seconds(90)
        change(&configuration)
        authorization = MCPAuthorization(configuration)
    }

    /// Why the client stopped, when it did not finish.
    struct Stopped: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects, lists the tools and calls `test-tool`; the error the client exits with, if any.
    @discardableResult
    func runEverything() async -> (any Error)? {
        do {
            try await connect()
            _ = try await request("tools/list")
            _ = try await request("tools/call", params: ["name": .string("test-tool"), "arguments": .object([:])])
            return nil
        } catch {
            return error
        }
    }

    func connect() async throws {
        if run.version.isStateless {
            _ = try await request("server/discover")
        } else {
            _ = try await request(
                "initialize",
                params: [
                    "protocolVersion": .string(run.version.rawValue), "capabilities": .object([:]),
                    "clientInfo": .object(["name": .string("conformance-everything-client"), "version": .string("1.0.0")]),
                ])
            _ = try await request("notifications/initialized", notification: true)
        }
    }

    /// One JSON-RPC request (or notification), sent again after each challenge the authorization answers.
    func request(_ method: String, params: [String: JSONValue] = [:], notification: Bool = false) async throws -> TransportResponse {
        var params = params
        if run.version.isStateless {
            params["_meta"] = .object([
                "io.modelcontextprotocol/protocolVersion": .string(run.version.rawValue),
                "io.modelcontextprotocol/clientCapabilities": .object([:]),
            ])
        }
        var message: [String: JSONValue] = ["jsonrpc": .string("2.0"), "method": .string(method)]
        if !params.isEmpty { message["params"] = .object(params) }
        if !notification {
            message["id"] = .number(Double(nextID))
            nextID += 1
        }
        let body = try JSONEncoder().encode(JSONValue.object(message))
        var attempts = 0
        while true {
            try? await authorization.prepareAuthorization(for: endpoint)
            var headers = ["Content-Type": "application/json", "Accept": "application/json, text/event-stream"]
            if method != "initialize" || run.version.isStateless { headers["MCP-Protocol-Version"] = run.version.rawValue }
            if let value = authorization.authorizationHeader(for: endpoint) { headers["Authorization"] = value }
            if let proof = authorization.dpopProof(method: "POST", url: endpoint, authorization: headers["Authorization"]) { headers["DPoP"] = proof }
            let response = try await run.transport.send(TransportRequest(method: .post, url: endpoint, headers: headers, body: body))
            if (200..<300).contains(response.status) { return response }
            guard response.status == 401 || response.status == 403 else {
                throw Stopped(description: "\(method) answered HTTP \(response.status)")
            }
            let handled = try await authorization.handleChallenge(
                statusCode: response.status, headers: response.headers, endpoint: endpoint, operation: method)
            attempts += 1
            guard handled, attempts < 3 else {
                throw Stopped(description: "\(method) still answered HTTP \(response.status) after \(attempts) attempts")
            }
        }
    }
}

/// The suite's client reads the code from the authorization endpoint's redirect without following it; here the user's
/// browser does that and then goes to the loopback redirect (real HTTP, as a browser would).
struct ConformanceBrowser: BrowserOpener {
    let run: ConformanceRun
    let opened = Log<URL>()

    func open(_ url: URL) async throws {
        opened.add(url)
        let run = self.run
        Task {
            guard let answer = try? await run.transport.send(TransportRequest(method: .get, url: url)), (300..<400).contains(answer.status),
                let location = answer.header("Location").flatMap(URL.init(string:))
            else { return }
            _ = await TestBrowser.get(location)
        }
    }
}

extension ConformanceRun {
    /// `Expected Check Missing`: a FAILURE for each id never recorded.
    func requireRecorded(_ ids: [String]) {
        for id in ids where checks(id).isEmpty { record(id, .failure, "Expected Check Missing: \(id)") }
    }

    /// The scenario's verdict as the suite's own tests take it (`test_helpers/testClient.ts`): every check that is not
    /// INFO is SUCCESS, the ids named were recorded, and the client finished unless the scenario allows it an error.
    func expectPassed(
        _ ids: [String], clientError: (any Error)?, allowClientError: Bool = false, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        for id in ids {
            #expect(!checks(id).isEmpty, "\(id) was never recorded", sourceLocation: sourceLocation)
        }
        let failing = checks.filter { $0.status != .success && $0.status != .info }
        #expect(failing.isEmpty, "checks not SUCCESS: \(failing)", sourceLocation: sourceLocation)
        if !allowClientError {
            #expect(clientError == nil, "the client stopped: \(clientError.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
        }
    }
}
