import Foundation
import OAuthFlowLoopback
import Testing

/// What a sign-out shows of its end-session URL (issue 55, item 3): never the ID token, everything else as it was sent.
@Suite struct LoopbackSignOutShownTests {
    @Test func theHintIsLeftOutAndTheRestKeptAsEncoded() throws {
        let sent = try #require(
            URL(
                string:
                    "https://sso.example.com/logout?x=1&id_token_hint=eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln&client_id=cli&post_logout_redirect_uri=http%3A%2F%2F127.0.0.1%3A8765%2Flogged-out&state=a%2Bb"
            ))
        let shown = LoopbackSignOut.shown(sent)
        #expect(
            shown.absoluteString
                == "https://sso.example.com/logout?x=1&client_id=cli&post_logout_redirect_uri=http%3A%2F%2F127.0.0.1%3A8765%2Flogged-out&state=a%2Bb")
        let bare = try #require(URL(string: "https://sso.example.com/logout?id_token_hint=eyJ.eyJ.sig"))
        #expect(LoopbackSignOut.shown(bare).absoluteString == "https://sso.example.com/logout")
        let none = try #require(URL(string: "https://sso.example.com/v2/logout?returnTo=x"))
        #expect(LoopbackSignOut.shown(none) == none)
    }
}
