import Crypto
import Foundation
import OAuthFlow

/// Sends each request to its simulated provider.
struct SimulatedTransport: HTTPTransport {
    let provider: SimulatedProvider

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard
            request.url.scheme == provider.issuer.scheme && request.url.host == provider.issuer.host && request.url.port == provider.issuer.port
                || provider.isMutualTLSHost(request.url)
        else {
            throw TransportError(.unreachable, url: request.url, message: "the simulated provider answers only \(provider.issuer.absoluteString)")
        }
        try provider.mutualTLSHandshake(request)
        return await provider.answer(request)
    }
}
