// Test helper: saves a session to a FileTokenStore in a loop until it is killed.
// Usage: StoreWriter DIRECTORY
// Each session carries its sequence number in `additionalFields["n"]` and a body
// large enough that a write takes more than one system call.
import Foundation
import OAuthFlow
import StoreHooks

ParentWatch.start()

let directory = URL(fileURLWithPath: CommandLine.arguments[1], isDirectory: true)
let store = FileTokenStore(directory: directory)
let padding = String(repeating: "x", count: 48 * 1024)
var sequence = 0
while true {
    sequence += 1
    let tokens = TokenSet(accessToken: Secret("access-\(sequence)-\(padding)"), tokenType: "bearer",
                          expiresAt: Date().addingTimeInterval(3600), refreshToken: Secret("refresh-\(sequence)"),
                          idToken: nil, scopes: ["openid"], issuedAt: Date(),
                          additionalFields: ["n": .number(Double(sequence))])
    let session = StoredSession(key: SessionKey(providerID: "torture"), variables: [:], clientID: "c",
                                redirectURI: URL(string: "http://127.0.0.1/callback")!, tokens: tokens, updatedAt: Date())
    try await store.save(session)
    if sequence == 1 { FileHandle.standardOutput.write(Data("first save done\n".utf8)) }
}
