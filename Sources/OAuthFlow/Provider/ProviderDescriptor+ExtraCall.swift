extension ProviderDescriptor.Profile {
    /// Refuses an extra call's `list` without `pick_where`: nothing would say which element of the list to use.
    func checkExtraCall(_ refusals: inout PolicyRefusals) {
        guard let extraCall, extraCall.list != nil, extraCall.pickWhere == nil else { return }
        refusals.refuse(
            ["profile", "extra_call", "list"], "names the list in the answer but `pick_where` is missing, which says which of its elements to use")
    }
}
