extension ProviderDescriptor {
    /// Where each field of a ``UserProfile`` comes from, as ordered lists of sources: the
    /// first source present wins. A source is `id_token.CLAIM`, `userinfo.FIELD` or
    /// `extra.FIELD` (the answer of `extra_call`), with `.` descending into objects.
    package struct Profile: Sendable, Hashable, Codable {
        package var subject: [String] = ["id_token.sub", "userinfo.sub"]
        package var name: [String] = ["id_token.name", "userinfo.name"]
        package var email: [String] = ["id_token.email", "userinfo.email"]
        package var emailVerified: [String] = ["id_token.email_verified", "userinfo.email_verified"]
        package var picture: [String] = ["id_token.picture", "userinfo.picture"]
        /// One more authorized GET, for what neither the ID token nor userinfo holds (GitHub's verified email).
        package var extraCall: ExtraCall?

        /// The declared extra call.
        package struct ExtraCall: Sendable, Hashable, Codable {
            /// A URL template, called with the access token as a Bearer token.
            package var url: String
            /// When the answer is a JSON list: use its first element whose field of this name is `true`.
            package var pickWhere: String?
            /// The member of the answer that holds the list `pickWhere` picks from, for an answer that is an object
            /// (Bitbucket's paginated `values`); nil when the answer is the list itself.
            package var list: String?

            enum CodingKeys: String, CodingKey {
                case url, pickWhere = "pick_where", list
            }
        }

        package init() {}

        /// The defaults, made once: they hold lists, and each `Self()` would allocate them again.
        package static let standard = Self()

        /// Each profile field by its YAML key, with its sources in order.
        var fields: [(key: String, sources: [String])] {
            [("subject", subject), ("name", name), ("email", email), ("email_verified", emailVerified), ("picture", picture)]
        }

        /// Every source, with the profile field it fills.
        package var sources: [(field: String, source: String)] {
            fields.flatMap { field, sources in sources.map { (field, $0) } }
        }
    }
}

// The schema's `profile` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let profileDefaults = ProviderDescriptor.Profile()

    /// A profile source: its grammar is ``ProfileSource``'s, checked when the descriptor is resolved (and by lint,
    /// through the resolver's refusals), where a positioned sentence can say what is wrong.
    static let profileSource = Shape.string()

    static let profileFields: [SectionKey<ProviderDescriptor.Profile>] = [
        SectionKey(
            \.subject, { $0.subject = $1 }, "subject", .list(profileSource), default: shown(profileDefaults.subject),
            "Sources of the user's stable id at the provider, first present wins (GitHub: `userinfo.id`; Entra: `id_token.oid`). A source is a path: a root (`id_token`, `userinfo`, `extra`, `callback`, or `token`: the token endpoint's answer) and steps into it, `.name` into an object, `[0]` into a list, `[\"name\"]` for a member whose name holds `.` or `/` (`id_token[\"https://slack.com/team_id\"]`); or a template with `{path}` placeholders, present when every one is (`https://cdn.discordapp.com/avatars/{userinfo.id}/{userinfo.avatar}.png`); or `=true`/`=false`, a constant."
        ),
        SectionKey(
            \.name, { $0.name = $1 }, "name", .list(profileSource), default: shown(profileDefaults.name),
            "Sources of the display name. A source may join several with ` + ` (their text, space-separated): Apple's `callback.user.name.firstName + callback.user.name.lastName`, where `callback.` reads a parameter the provider added to the callback (a JSON value is read as one)."
        ),
        SectionKey(
            \.email, { $0.email = $1 }, "email", .list(profileSource), default: shown(profileDefaults.email),
            "Sources of the email address."),
        SectionKey(
            \.emailVerified, { $0.emailVerified = $1 }, "email_verified", .list(profileSource), default: shown(profileDefaults.emailVerified),
            "Sources of whether the provider verified that address; without one the flag is unknown, never assumed."),
        SectionKey(
            \.picture, { $0.picture = $1 }, "picture", .list(profileSource), default: shown(profileDefaults.picture),
            "Sources of the picture URL (GitHub: `userinfo.avatar_url`)."),
        SectionKey(
            \.extraCall, "extra_call", .object(profileCallFields),
            "One more authorized GET for what the ID token and userinfo lack (GitHub's verified primary email: `https://api.github.com/user/emails`); its answer is the `extra.` source."
        ) { o, key, section in
            section.extraCall = try o.object(key) { extra in
                typealias Keys = ProviderDescriptor.Profile.ExtraCall.CodingKeys
                return ProviderDescriptor.Profile.ExtraCall(
                    url: try extra.required(Keys.url, extra.string), pickWhere: try extra.string(Keys.pickWhere),
                    list: try extra.string(Keys.list))
            }
        },
    ]

    static let profileCallFields: [Field] = [
        Field("url", .urlTemplate, required: true, "The URL, called with the access token; may use `{variables}`."),
        Field(
            "pick_where", .string(pattern: "^[A-Za-z0-9_]+$"),
            "When the answer is a list: use its first element whose field of this name is `true` (GitHub: `primary`)."),
        Field(
            "list", .string(pattern: "^[A-Za-z0-9_]+$"),
            "When the answer is an object holding the list: the member that holds it, which `pick_where` (required with it) picks from (Bitbucket's paginated `values`)."
        ),
    ]
}

extension ProviderDescriptor.Profile: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.profileFields }
}
