// The cost of a DPoP proof per request (RFC 9449), per key algorithm: what every token, refresh and
// resource request of a DPoP-bound session pays on top of the request itself.
//
//     cd Benchmarks && swift run -c release DPoPBenchmark [PROOFS] [RUNS]     (defaults 20000 and 5)
//
// Prints, for ES256 (the default), RS256 and PS256: the median over RUNS of the time per proof for a token
// request (no `ath`) and for a resource request (`ath` over a 1 KiB access token), sequential on one task,
// and the throughput with one task per core. Also the cost of making a key pair, once per sign-in.
import Crypto
import Foundation
import OAuthFlow

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let proofs = arguments.first ?? 20_000
let runs = arguments.dropFirst().first ?? 5
let url = URL(string: "https://api.example.com/v1/orders?page=2")!
let token = Secret(String(repeating: "t", count: 1024))
let cores = ProcessInfo.processInfo.activeProcessorCount

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func microseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
}

print("\(proofs) proofs per run, \(runs) runs, \(cores) cores")
// The floor: one P-256 signature over a proof-sized input, with nothing around it.
do {
    let raw = P256.Signing.PrivateKey()
    let input = Data(repeating: 0x61, count: 400)
    var times: [Double] = []
    for _ in 0..<runs {
        let started = ContinuousClock.now
        for _ in 0..<proofs { _ = try raw.signature(for: input) }
        times.append(microseconds(ContinuousClock.now - started) / Double(proofs))
    }
    print("P-256 signature alone (swift-crypto): \(String(format: "%.1f", median(times))) µs")
}
print("| Key | make key pair | proof, token request | proof, resource request | proofs/s, \(cores) tasks |")
print("| --- | --- | --- | --- | --- |")
for algorithm in [JWSAlgorithm.es256, .rs256, .ps256] {
    let clock = ContinuousClock()
    var keyTimes: [Double] = []
    var key = try DPoPKey.generate(algorithm)
    for _ in 0..<max(runs, 3) {
        let started = clock.now
        key = try DPoPKey.generate(algorithm)
        keyTimes.append(microseconds(clock.now - started))
    }
    let count = algorithm == .es256 ? proofs : max(proofs / 10, 100)
    var plain: [Double] = []
    var bound: [Double] = []
    var parallel: [Double] = []
    for _ in 0..<runs {
        var started = clock.now
        for _ in 0..<count { _ = try await key.proof(method: .post, url: url) }
        plain.append(microseconds(clock.now - started) / Double(count))
        started = clock.now
        for _ in 0..<count { _ = try await key.proof(method: .get, url: url, accessToken: token, nonce: "server-nonce") }
        bound.append(microseconds(clock.now - started) / Double(count))
        started = clock.now
        let shared = key
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<cores {
                group.addTask { for _ in 0..<(count / cores) { _ = try await shared.proof(method: .get, url: url, accessToken: token) } }
            }
            try await group.waitForAll()
        }
        parallel.append(Double(count / cores * cores) / (microseconds(clock.now - started) / 1e6))
    }
    print(
        "| \(algorithm.rawValue) | \(String(format: "%.0f", median(keyTimes))) µs | \(String(format: "%.1f", median(plain))) µs | \(String(format: "%.1f", median(bound))) µs | \(String(format: "%.0f", median(parallel))) |"
    )
}
