import Foundation
import Testing

@testable import OAuthFlow

/// The one origin rule (RFC 6454 §4) that every "only to its own server" check compares by.
@Suite struct OriginTests {
    private func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    @Test func theDefaultPortWrittenOrNotIsOneOrigin() throws {
        #expect(Origin.same(try url("https://AS.Example.com/token"), try url("https://as.example.com:443/par")))
        #expect(Origin.same(try url("http://127.0.0.1/cb"), try url("http://127.0.0.1:80/x")))
        #expect(try #require(Origin(try url("HTTPS://AS.example.com/a"))).description == "https://as.example.com:443")
    }

    @Test func anotherSchemeHostOrPortIsAnotherOrigin() throws {
        let home = try url("https://as.example.com/token")
        for other in [
            "http://as.example.com/token", "https://as.example.com:8443/token", "https://as.example.com.evil.test/token",
            "https://evil.test/as.example.com", "https://evil.test/?as.example.com", "https://mtls.as.example.com/token",
        ] {
            #expect(!Origin.same(home, try url(other)), "\(other)")
        }
    }

    @Test func aURLWithoutAHostHasNoOriginAndMatchesNothing() throws {
        #expect(Origin(try url("urn:ietf:params:oauth:request_uri:abc")) == nil)
        #expect(!Origin.same(try url("urn:example:a"), try url("urn:example:a")))
        #expect(!Origin.same(try url("file:///tmp/a"), try url("file:///tmp/a")))
    }

    @Test func aNonceIsKeptForItsOriginWhateverThePortIsWrittenAs() throws {
        let nonces = DPoPNonces()
        #expect(nonces.remember("n-1", for: try url("https://as.example.com/token")))
        #expect(nonces.nonce(for: try url("https://as.example.com:443/par")) == "n-1")
        #expect(nonces.nonce(for: try url("https://as.example.com:8443/token")) == nil)
        #expect(nonces.nonce(for: try url("https://as.example.com.evil.test/token")) == nil)
        #expect(!nonces.remember("n-2", for: try url("urn:example:a")))
    }
}
