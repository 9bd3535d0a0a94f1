import Foundation
import OAuthFlow
import Testing

/// The user's browser in a test, one for every suite: the requests a browser sends to a provider and to the loopback
/// redirect. The whole suite runs on two cores, where a loopback answer can wait seconds for a thread, so each request
/// has a generous deadline and one that found nothing listening is tried again. A browser that gives up records an
/// issue in the test that opened it: the sign-in would otherwise only wait out its own timeout and say no more.
public enum TestBrowser {
    /// Each request's total deadline, in seconds: well past a busy moment, well inside a sign-in's wait.
    public static let deadline: TimeInterval = 30

    /// `url`'s answer, or `nil` with an issue recorded. Only a request that reached no server is sent again: one that
    /// timed out may have arrived, and a browser does not deliver a callback twice.
    public static func get(_ url: URL, sourceLocation: Testing.SourceLocation = #_sourceLocation) async -> TransportResponse? {
        let transport = DefaultHTTPTransport(timeout: deadline)
        var attempt = 0
        while true {
            do {
                return try await transport.send(TransportRequest(method: .get, url: url))
            } catch let error as TransportError where error.code == .unreachable && attempt < 3 {
                attempt += 1
                try? await Task.sleep(for: .milliseconds(200 * attempt))
            } catch {
                Issue.record("the test's browser gave up on \(url.host ?? "?")\(url.path): \(error)", sourceLocation: sourceLocation)
                return nil
            }
        }
    }

    /// Follows `url`'s redirects as a browser does (at most 8) and returns the first answer that is not one, or `nil`
    /// with an issue recorded.
    public static func follow(_ url: URL, sourceLocation: Testing.SourceLocation = #_sourceLocation) async -> TransportResponse? {
        var current = url
        for _ in 0..<8 {
            guard let answer = await get(current, sourceLocation: sourceLocation) else { return nil }
            guard (300..<400).contains(answer.status), let location = answer.header("Location"),
                let next = URL(string: location, relativeTo: current)?.absoluteURL
            else { return answer }
            current = next
        }
        Issue.record("the test's browser followed 8 redirects from \(url.host ?? "?")\(url.path)", sourceLocation: sourceLocation)
        return nil
    }
}
