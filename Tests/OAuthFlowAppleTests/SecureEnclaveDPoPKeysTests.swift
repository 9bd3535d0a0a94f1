import Crypto
import Foundation
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

@testable import OAuthFlow
@testable import OAuthFlowApple

/// DPoP keys the device holds (issue 56 item 14), with a software enclave standing in for the Secure Enclave: the
/// session names the key and holds no private key; a key gone from the device is said so before anything is sent.
///
/// Serialized: each test registers its device's keeper under the one name `secure-enclave`.
@Suite(.serialized) struct SecureEnclaveDPoPKeysTests {
    let keychain = InMemoryKeychain()
    let service = "com.example.\(UUID().uuidString).oauthflow"

    /// A provider that binds tokens with DPoP and rotates refresh tokens, and its app client.
    func provider() throws -> (SimulatedProvider, OAuthClient) {
        let simulated = try SimulatedProvider(clock: MovableClock(startingAt: Date(timeIntervalSince1970: 1_900_000_000)))
        var options = SimulatedProvider.DescriptorOptions()
        options.bindsTokensWithDPoP = true
        return (simulated, try Simulated.appClient(simulated, options))
    }

    /// A sign-in whose DPoP key `keys` makes, kept in the keychain store.
    func signIn(with keys: SoftwareEnclave, at simulated: SimulatedProvider, _ client: OAuthClient) async throws -> StoredSession {
        await simulated.configure { $0.requiresDPoP = true }
        let store = KeychainTokenStore.testing(keychain, service: service)
        return try await DPoPKey.keeping(in: SecureEnclaveDPoPKeys(keys: keys)) {
            try await Simulated.session(client, at: simulated, in: store)
        }
    }

    @Test func theSessionNamesItsKeyAndHoldsNoPrivateKey() async throws {
        let (simulated, client) = try provider()
        let device = SoftwareEnclave()
        let session = try await signIn(with: device, at: simulated, client)
        let key = try #require(session.tokens.proofKey)
        #expect(key.keeper == "secure-enclave")
        #expect(session.tokens.tokenType.lowercased() == "dpop")
        let stored = try #require(keychain[KeychainItem(service: service, account: "simulated/default")]?.data)
        let json = try #require(try JSONSerialization.jsonObject(with: stored) as? [String: Any])
        let tokens = try #require(json["tokens"] as? [String: Any])
        let proofKey = try #require(tokens["proofKey"] as? [String: Any] ?? tokens["proof_key"] as? [String: Any])
        #expect(proofKey["pem"] == nil, "no private key in the session")
        #expect(proofKey["keeper"] as? String == "secure-enclave" && proofKey["ref"] is String)
        #expect(!"\(key)".contains(proofKey["ref"] as? String ?? "-"))
        // A later launch: the stored key is found again and signs the refresh's proof.
        simulated.clock.advance(3600 + 10)
        let store = KeychainTokenStore.testing(keychain, service: service)
        let refreshed = try await TokenManager(client: client, store: store, key: session.key).refresh()
        #expect(refreshed.tokens.proofKey == key && refreshed.tokens.tokenType.lowercased() == "dpop")
        #expect(try await Simulated.isActive(refreshed.tokens.refreshToken, at: simulated))
    }

    /// A session restored onto another device: its key is not in that device's enclave.
    @Test func aKeyGoneFromTheDeviceIsSaidSoAndNothingIsSent() async throws {
        let (simulated, client) = try provider()
        let session = try await signIn(with: SoftwareEnclave(), at: simulated, client)
        DPoPKey.register(SecureEnclaveDPoPKeys(keys: SoftwareEnclave()))  // the new device's
        simulated.clock.advance(3600 + 10)
        let exchanges = await simulated.requestCount(.token)
        let store = KeychainTokenStore.testing(keychain, service: service)
        let error = try await #require(throws: FlowError.self) {
            try await TokenManager(client: client, store: store, key: session.key).refresh()
        }
        #expect(error.code == .dpopKeyMissing)
        #expect(error.message.contains("sign in again") && error.message.contains("nothing was sent"), "\(error.message)")
        #expect(await simulated.requestCount(.token) == exchanges)
        #expect(try await Simulated.isActive(session.tokens.refreshToken, at: simulated), "the refresh token was not spent")
    }

    /// The enclave failing for another reason than the key being gone (busy, interrupted): not "sign in again", the
    /// session is kept, nothing is sent, and it works once the enclave does.
    @Test func anEnclaveFailureOtherThanAMissingKeyKeepsTheSession() async throws {
        let (simulated, client) = try provider()
        var device = SoftwareEnclave()
        let session = try await signIn(with: device, at: simulated, client)
        device.failing = ("CryptoTokenKit", -9)
        DPoPKey.register(SecureEnclaveDPoPKeys(keys: device))
        simulated.clock.advance(3600 + 10)
        let exchanges = await simulated.requestCount(.token)
        let store = KeychainTokenStore.testing(keychain, service: service)
        let error = try await #require(throws: FlowError.self) {
            try await TokenManager(client: client, store: store, key: session.key).refresh()
        }
        #expect(error.code == .dpopKeyUnavailable && error.message.contains("try again"), "\(error.message)")
        #expect(await simulated.requestCount(.token) == exchanges, "nothing sent")
        #expect(try await store.load(session.key) == session, "the session is kept")
        device.failing = nil
        DPoPKey.register(SecureEnclaveDPoPKeys(keys: device))
        _ = try await TokenManager(client: client, store: store, key: session.key).refresh()
        #expect(SecureEnclaveDPoPKeys.failure(SoftwareEnclave.itemNotFound, protectedDataAvailable: false).code == .dpopKeyMissing)
        #expect(SecureEnclaveDPoPKeys.failure(NSError(domain: "NSOSStatusErrorDomain", code: -25308), protectedDataAvailable: true).code == .dpopKeyUnavailable)
    }

    /// A key that CryptoKit cannot reopen with an error of its own (not `errSecItemNotFound`: a key of another device,
    /// a reset enclave) while the device is unlocked is missing: "sign in again", not "try again later" for ever. The
    /// same error before the device's first unlock keeps the session; so do errors that wait for the user or device.
    @Test func aKeyThatCannotBeReopenedWhileProtectedDataIsAvailableIsMissing() async throws {
        let (simulated, client) = try provider()
        let session = try await signIn(with: SoftwareEnclave(), at: simulated, client)
        var otherDevice = SoftwareEnclave()
        otherDevice.foreignKey = ("CryptoTokenKit", -3)   // corruptedData
        otherDevice.keychain = InMemoryKeychain()
        simulated.clock.advance(3600 + 10)
        let store = KeychainTokenStore.testing(keychain, service: service)
        let exchanges = await simulated.requestCount(.token)

        otherDevice.keychain?.device = .beforeFirstUnlock
        DPoPKey.register(SecureEnclaveDPoPKeys(keys: otherDevice))
        let locked = try await #require(throws: FlowError.self) { try await TokenManager(client: client, store: store, key: session.key).refresh() }
        #expect(locked.code == .dpopKeyUnavailable, "before the first unlock: \(locked.message)")
        #expect(try await store.load(session.key) == session, "the session is kept")

        otherDevice.keychain?.device = .locked   // unlocked once since it started: protected data of this class is there
        DPoPKey.register(SecureEnclaveDPoPKeys(keys: otherDevice))
        let missing = try await #require(throws: FlowError.self) { try await TokenManager(client: client, store: store, key: session.key).refresh() }
        #expect(missing.code == .dpopKeyMissing && missing.message.contains("sign in again") && missing.message.contains("CryptoTokenKit -3"), "\(missing.message)")
        #expect(await simulated.requestCount(.token) == exchanges, "nothing sent")
        #expect(try await Simulated.isActive(session.tokens.refreshToken, at: simulated), "the refresh token was not spent")

        // Errors that wait for the user or the device keep the session even while protected data is available.
        for (domain, code) in [("CryptoTokenKit", -9), ("CryptoTokenKit", -2), ("NSOSStatusErrorDomain", -25308), ("com.apple.LocalAuthentication", -1004)] {
            #expect(SecureEnclaveDPoPKeys.failure(NSError(domain: domain, code: code), protectedDataAvailable: true).code == .dpopKeyUnavailable, "\(domain) \(code)")
        }
        #expect(SecureEnclaveDPoPKeys.failure(NSError(domain: "CryptoKit.CryptoKitError", code: 3), protectedDataAvailable: true).code == .dpopKeyMissing)
        #expect(SecureEnclaveDPoPKeys.failure(NSError(domain: "CryptoKit.CryptoKitError", code: 3), protectedDataAvailable: false).code == .dpopKeyUnavailable)
    }

    /// The keychain probe behind "protected data is available": not before the first unlock; yes once unlocked, and
    /// while locked after that (the class of CryptoKit's keys); the probe item is made once.
    @Test func protectedDataIsAvailableOnceTheDeviceWasUnlocked() {
        let device = InMemoryKeychain()
        device.device = .beforeFirstUnlock
        #expect(!ProtectedData(items: device).isAvailable)
        #expect(device[ProtectedData.probe] == nil)
        device.device = .unlocked
        #expect(ProtectedData(items: device).isAvailable)
        #expect(device[ProtectedData.probe]?.accessibility == .afterFirstUnlockThisDeviceOnly)
        device.device = .locked
        #expect(ProtectedData(items: device).isAvailable)
        device.device = .beforeFirstUnlock
        #expect(!ProtectedData(items: device).isAvailable)
    }

    @Test func aDeviceWithoutASecureEnclaveIsSaidSo() throws {
        var keys = SoftwareEnclave()
        keys.isAvailable = false
        let error = try #require(throws: FlowError.self) { try SecureEnclaveDPoPKeys(keys: keys).newSigner() }
        #expect(error.code == .dpop && error.message.contains("no Secure Enclave"))
    }

    @Test func aKeeperMakesES256KeysOnly() async throws {
        await #expect(throws: FlowError.self) {
            try await DPoPKey.keeping(in: SecureEnclaveDPoPKeys(keys: SoftwareEnclave())) { try DPoPKey.generate(.eddsa) }
        }
        let key = try await DPoPKey.keeping(in: SecureEnclaveDPoPKeys(keys: SoftwareEnclave())) { try DPoPKey.generate() }
        #expect(key.keeper == "secure-enclave" && key.algorithm == .es256)
        #expect(try DPoPKey.generate().keeper == nil, "outside keeping(in:) keys are the session's")
    }

    /// A stored key whose keeper this process never registered: the error says what to do.
    @Test func aKeeperNotRegisteredIsNamed() async throws {
        let key = try await DPoPKey.keeping(in: SecureEnclaveDPoPKeys(keys: SoftwareEnclave())) { try DPoPKey.generate() }
        var json = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(key)) as? [String: Any])
        json["keeper"] = "nobody-\(UUID().uuidString)"
        let stored = try JSONDecoder().decode(DPoPKey.self, from: try JSONSerialization.data(withJSONObject: json))
        #expect(stored == key)
        let error = try await #require(throws: FlowError.self) {
            try await stored.proof(method: .get, url: URL(string: "https://api.example.com/")!)
        }
        #expect(error.code == .dpop && error.message.contains("DPoPKey.register"))
    }

    /// A proof from a kept key verifies as RFC 9449 §4.3 says, with its public key in the header.
    @Test func aProofFromAKeptKeyVerifies() async throws {
        let key = try await DPoPKey.keeping(in: SecureEnclaveDPoPKeys(keys: SoftwareEnclave())) { try DPoPKey.generate() }
        let url = URL(string: "https://api.example.com/notes?page=2")!
        let proof = try await key.proof(httpMethod: "PATCH", url: url, accessToken: Secret("token"), nonce: "n-1", now: Date())
        let jws = try CompactJWS(proof)
        #expect(jws.header["typ"] == .string("dpop+jwt") && jws.header["alg"] == .string("ES256"))
        #expect(jws.claims["htm"] == .string("PATCH") && jws.claims["htu"] == .string("https://api.example.com/notes"))
        #expect(jws.claims["nonce"] == .string("n-1") && jws.claims["ath"] != nil)
        let x = try #require(key.publicJWK["x"].flatMap { Base64URL.decode($0) })
        let y = try #require(key.publicJWK["y"].flatMap { Base64URL.decode($0) })
        let publicKey = try P256.Signing.PublicKey(x963Representation: Data([4]) + x + y)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: jws.signature)
        #expect(publicKey.isValidSignature(signature, for: Data(jws.signingInput)))
    }
}
