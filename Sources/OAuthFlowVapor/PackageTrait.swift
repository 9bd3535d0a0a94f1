// OAuthFlowVapor is built only with the package trait Vapor (Package.swift): without, it says so in one sentence.
#if !(Vapor)
#error("OAuthFlowVapor needs the package trait Vapor: .package(…, traits: [\"Vapor\"]), or tick it in Xcode's package traits")
#endif
