extension ProviderDescriptor.Profile {
    /// Refuses each source that cannot be read (``ProfileSource``).
    func check(_ refusals: inout PolicyRefusals) {
        // Most descriptors leave the profile as it is: nothing to read, and no lists of fields made to compare.
        guard self != Self.standard else { return }
        for ((field, sources), (_, defaults)) in zip(fields, Self.standard.fields) where sources != defaults {
            // A field left at its default sources is not read again for each descriptor (a test reads those once).
            for (index, source) in sources.enumerated() {
                do {
                    let parsed = try ProfileSource(parsing: source)
                    if let member = parsed.paths.lazy.compactMap(\.secretMember).first {
                        refusals.refuse(
                            ["profile", field], item: String(index),
                            "names `\(member)` of the token answer, a token or a secret, which a profile never shows")
                    }
                } catch {
                    refusals.refuse(["profile", field], item: String(index), "cannot be read: \(error.reason)")
                }
            }
        }
    }

    /// Refuses an extra call's `list` without `pick_where`: nothing would say which element of the list to use.
    func checkExtraCall(_ refusals: inout PolicyRefusals) {
        guard let extraCall, extraCall.list != nil, extraCall.pickWhere == nil else { return }
        refusals.refuse(
            ["profile", "extra_call", "list"], "names the list in the answer but `pick_where` is missing, which says which of its elements to use")
    }
}
