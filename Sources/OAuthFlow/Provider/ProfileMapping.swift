import Foundation

/// Where each field of a ``UserProfile`` comes from (the descriptor's `profile`), and the resolved extra call.
package struct ProfileMapping: Sendable, Hashable {
    /// Ordered sources per field (``ProfileSource``); the first present wins.
    public var subject: [String]
    public var name: [String]
    public var email: [String]
    public var emailVerified: [String]
    public var picture: [String]
    /// One more authorized GET, for what neither the ID token nor userinfo holds (GitHub's verified email).
    public var extraCall: URL?
    /// When the extra call answers with a list: use its first element whose field of this name is `true`.
    public var extraCallPickWhere: String?
    /// The member of the extra call's answer holding the list ``extraCallPickWhere`` picks from (Bitbucket's
    /// `values`); nil when the answer is the list.
    public var extraCallList: String? = nil

    /// Every source, with the profile field it fills.
    public var sources: [(field: String, source: String)] {
        [("subject", subject), ("name", name), ("email", email), ("email_verified", emailVerified), ("picture", picture)]
            .flatMap { field, sources in sources.map { (field, $0) } }
    }

    /// The roots the sources read (`id_token`, `userinfo`, `extra`, `callback`, `token`), those of joined sources
    /// and templates included.
    public var roots: Set<String> {
        Set(sources.flatMap { (try? ProfileSource(parsing: $0.source))?.readRoots ?? [] })
    }
}
