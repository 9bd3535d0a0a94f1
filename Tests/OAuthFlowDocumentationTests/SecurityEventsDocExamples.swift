import Foundation
import Hummingbird
import OAuthFlow
import OAuthFlowHummingbird
import OAuthFlowPostgres
import OAuthFlowSecurityEvents
import PostgresNIO

/// Docs/security-events.md's Swift lines, compiled here (DocExampleTests checks that each appears in this file).
/// SecurityEventReceiverTests runs them against the simulated transmitter, PostgresSecurityEventTests with two
/// instances sharing PostgreSQL, WebSecurityEventRouteTests through the Hummingbird route.
enum SecurityEventsDocExamples {
    /// The host's own account data, a stand-in.
    actor Accounts {
        func note(_ type: String, about subject: SecurityEvent.Subject) {}
        func note(_ type: String, email: String?, of user: String) {}
        func scheduleDeletion(of user: String) {}
        func subject(forEmail address: String) throws -> String? { nil }
    }

    /// A transmitter of events alone, from YAML text, with no client, polled until the task is cancelled.
    static func eventsOnly(store: any TokenStore, signalsYAML: String, accounts: Accounts) throws -> Task<Void, Never> {
        var configuration = OAuth.Configuration(store: store)
        configuration.descriptors = [try ProviderDescriptor(yaml: signalsYAML)]
        let signals = try OAuth(configuration).securityEventReceiver(for: "signals", audiences: ["com.example.web"], handler: { outcome in
            if outcome.resolution == .unresolved { await accounts.note(outcome.event.type, about: outcome.event.subject) }
        })
        let polling = Task { await signals.keepPolling(every: .seconds(30)) }
        return polling
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    static func pushed(
        clients: [String: ClientSettings], keyring: SessionKeyring, postgres: PostgresClient.Configuration,
        router: Router<BasicRequestContext>, accounts: Accounts
    ) async throws {
        let store = try PostgresTokenStore(configuration: postgres, keyring: keyring)
        let replays = try PostgresReplayRegistry(store: store)
        let oauth = OAuth(OAuth.Configuration(clients: clients, store: store))
        let receiver = try oauth.securityEventReceiver(for: "google", replays: replays, handler: { outcome in
            await accounts.note(outcome.event.type, about: outcome.event.subject)
        })
        router.addSecurityEventRoute("/security-events/google", receiver: receiver)
        // At start-up, once `store.run()` is going (a service group, or a task of its own):
        try await store.migrate()
        try await replays.migrate()
    }

    static func apple(oauth: OAuth) throws -> SecurityEventReceiver {
        let apple = try oauth.securityEventReceiver(for: "apple", audiences: ["com.example.app", "com.example.web"])
        return apple
    }

    static func appleNotifications(oauth: OAuth, accounts: Accounts) throws -> SecurityEventReceiver {
        let notifications = try oauth.securityEventReceiver(for: "apple", audiences: ["com.example.web"], handler: { outcome in
            guard case let .issuerSubject(_, user) = outcome.event.subject else { return }
            switch outcome.event.type {
            case "account-delete": await accounts.scheduleDeletion(of: user)   // the sessions are already ended
            case "email-disabled", "email-enabled": await accounts.note(outcome.event.type, email: outcome.event.members["email"]?.stringValue, of: user)
            default: break
            }
        })
        return notifications
    }

    static func subjects(oauth: OAuth, accounts: Accounts) throws -> SecurityEventReceiver {
        let receiver = try oauth.securityEventReceiver(for: "acme-ssf", resolveSubject: { subject in
            if case let .email(address) = subject { return try await accounts.subject(forEmail: address) }
            return nil
        })
        return receiver
    }

    static func streams(oauth: OAuth) async throws {
        let service = try oauth.serviceTokens(for: "acme-ssf")
        let events = try oauth.securityEventReceiver(for: "acme-ssf", managementToken: { try await service.accessToken() })
        let stream = try await events.createStream(delivery: .push(endpoint: URL(string: "https://app.example.com/security-events/acme-ssf")!))
        try await events.requestVerification(ofStream: stream.id)
        print(try await events.status(ofStream: stream.id).status)
        let polled = try await events.poll(stream)
        print("\(polled.accepted.count) events, \(polled.refused.count) refused")
    }
}
