import Crypto

/// One introspection per token at a time: later askers wait for the one under way.
actor IntrospectionFlights {
    private var flights: [SHA256Digest: Task<TrustedProvider.IntrospectionOutcome, Never>] = [:]

    func run(_ digest: SHA256Digest, _ work: @escaping @Sendable () async -> TrustedProvider.IntrospectionOutcome) async
        -> TrustedProvider.IntrospectionOutcome
    {
        if let flight = flights[digest] { return await flight.value }
        let flight = Task { await work() }
        flights[digest] = flight
        let outcome = await flight.value
        flights[digest] = nil
        return outcome
    }
}
