// VaporSignInExample is built only with the package trait Vapor (Package.swift; the test command enables every trait).
#if !(Vapor)
#error("VaporSignInExample needs the package trait \"Vapor\": swift build --enable-all-traits")
#endif
