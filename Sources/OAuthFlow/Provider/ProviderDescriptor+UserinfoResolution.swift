extension ProviderDescriptor.Userinfo {
    /// The request, its header and query templates filled with the variables (``RequestTemplate`` placeholders
    /// stay for the call); refuses what the engine cannot send or would send unsafely.
    ///
    /// - Parameters:
    ///   - dpop: Whether the provider's tokens may be DPoP-bound, which only the header can carry.
    ///   - extraCall: Whether the profile makes its extra call, a `GET` that takes the token as userinfo does.
    func resolved(dpop: Bool, extraCall: Bool, declared: ProviderDescriptor.VariableNames, _ refusals: inout PolicyRefusals) -> Self {
        let checkingOnly = refusals.variables == nil
        func templates(_ values: [String: String], _ key: String) -> [String: String] {
            guard !values.isEmpty else { return values }
            var filled: [String: String] = [:]
            for (name, template) in values.sorted(by: { $0.key < $1.key }) {
                let value = refusals.filled(template, ["userinfo", key, name], keeping: RequestTemplate.requestPlaceholders(in: template))
                // Checked without values (lint): a declared variable stands for the value it will have.
                let checked = checkingOnly ? URLTemplate(value).rendering { declared.contains(String($0)) ? "v" : "{\($0)}" } : value
                do {
                    _ = try RequestTemplate(parsing: checked)
                } catch {
                    refusals.refuse(["userinfo", key], item: name, error.reason)
                }
                filled[name] = value
            }
            return filled
        }
        var request = self
        // Names here; values are request templates, checked as they are parsed.
        if !headers.isEmpty { refusals.checkHeaders(headers.mapValues { _ in "" }, at: ["userinfo", "headers"]) }
        request.headers = templates(headers, "headers")
        request.query = templates(query, "query")
        request.form = templates(form, "form")
        for name in headers.keys.sorted() where name.lowercased() == "authorization" && placement == .header {
            refusals.refuse(
                ["userinfo", "headers"], item: name, "sets `Authorization`, which carries the access token; use `scheme` for another word")
        }
        if placement == .body, method != .post {
            refusals.refuse(["userinfo", "placement"], "is `body`, which needs `method: POST`")
        }
        if placement == .body, extraCall {
            refusals.refuse(["userinfo", "placement"], "is `body`, which the profile's extra call, a `GET`, cannot send")
        }
        if placement == .body, body != nil {
            refusals.refuse(["userinfo", "body"], "is set, and `placement: body` makes the body the token's form; use one or the other")
        }
        if !form.isEmpty, method != .post {
            refusals.refuse(["userinfo", "form"], "is set, which needs `method: POST`")
        }
        if !form.isEmpty, body != nil {
            refusals.refuse(["userinfo", "form"], "is set with `body`; a request has one body")
        }
        if placement == .body, form.keys.contains(tokenParameter) {
            refusals.refuse(["userinfo", "form"], item: tokenParameter, "sets `\(tokenParameter)`, which carries the access token")
        }
        if body != nil, method != .post {
            refusals.refuse(["userinfo", "body"], "is set, which needs `method: POST`")
        }
        if placement != .header, dpop {
            refusals.refuse(
                ["userinfo", "placement"],
                "is `\(placement.rawValue)`, but `security.dpop` lets tokens be DPoP-bound, which only the header carries (RFC 9449 §7.1)")
        }
        if placement == .query, query.keys.contains(tokenParameter) {
            refusals.refuse(["userinfo", "query"], item: tokenParameter, "sets `\(tokenParameter)`, which carries the access token")
        }
        return request
    }
}

extension Provider.Policy {
    /// How the userinfo request differs from a GET with `Authorization: Bearer`, in one line (`oauthflow providers show`
    /// prints it); nil when it does not.
    public var userinfoRequestSummary: String? {
        let plain = ProviderDescriptor.Userinfo()
        guard
            userinfo.method != plain.method || userinfo.placement != plain.placement || userinfo.scheme != plain.scheme
                || !userinfo.headers.isEmpty || !userinfo.query.isEmpty || !userinfo.form.isEmpty || userinfo.body != nil
        else { return nil }
        var parts = [userinfo.method.rawValue]
        switch userinfo.placement {
        case .header: parts.append(userinfo.scheme.isEmpty ? "the token alone in Authorization" : "Authorization: \(userinfo.scheme) <token>")
        case .query: parts.append("the token in the query as `\(userinfo.tokenParameter)`")
        case .body: parts.append("the token in a form body as `\(userinfo.tokenParameter)`")
        }
        func listed(_ values: [String: String]) -> String {
            values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        if !userinfo.headers.isEmpty { parts.append("headers \(listed(userinfo.headers))") }
        if !userinfo.query.isEmpty { parts.append("query \(listed(userinfo.query))") }
        if !userinfo.form.isEmpty { parts.append("form \(listed(userinfo.form))") }
        if let body = userinfo.body { parts.append("body \(body)" + (userinfo.contentType.map { " (\($0))" } ?? "")) }
        return parts.joined(separator: ", ")
    }
}
