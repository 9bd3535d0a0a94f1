/// Which trusted provider and which cache answered a token check: what it is counted and traced by.
struct CheckTrace {
    /// The index of the provider that answered (or refused), once one was chosen.
    var provider: Int?
    /// The cache the token was looked for in, by how it was checked; nil when no token got that far.
    var source: ProtectedResource.Principal.Source?
    /// Whether the cache answered.
    var hit = false

    mutating func hit(provider: Int?, source: ProtectedResource.Principal.Source) {
        self.provider = provider
        self.source = source
        hit = true
    }

    mutating func miss(provider: Int, source: ProtectedResource.Principal.Source) {
        self.provider = provider
        self.source = source
        hit = false
    }
}
