import Foundation
import OAuthFlow
import OAuthFlowFiles
import OAuthFlowTestSupport
import Testing

/// Which clients-file mapping answers git, without a server.
@Suite struct CredentialProtocolTests {
    @Test(arguments: [
        ("https://git.example.com", "protocol=https\nhost=git.example.com\n", true),
        ("https://git.example.com", "protocol=http\nhost=git.example.com\n", false),
        ("https://git.example.com", "protocol=https\nhost=git.example.com.evil\n", false),
        ("https://git.example.com:8443/team", "protocol=https\nhost=git.example.com:8443\npath=team/repo.git\n", true),
        ("https://git.example.com:8443/team", "protocol=https\nhost=git.example.com:8443\npath=teammate/repo.git\n", false),
        ("https://git.example.com/team", "protocol=https\nhost=git.example.com\n", true),
    ])
    func mappingsMatchProtocolHostAndPathPrefix(_ url: String, _ request: String, _ expected: Bool) throws {
        #expect(ClientSettingsResolver.GitCredentialMapping(url: url, provider: "p").matches(try GitCredentialLines.parse(request)) == expected)
    }

}
