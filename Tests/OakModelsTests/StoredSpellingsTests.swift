import OakModels
import Testing

@Suite("The spellings a species name may be stored under")
struct StoredSpellingsTests {
    @Test("the exact name comes first, then the normalized spelling, the other leading marker, and the ASCII x and X forms")
    func order() {
        #expect(
            Species.storedSpellings(of: "berberidifolia x cornelius-mulleri") == [
                "berberidifolia x cornelius-mulleri", "berberidifolia × cornelius-mulleri", "× berberidifolia × cornelius-mulleri",
                "berberidifolia X cornelius-mulleri", "x berberidifolia x cornelius-mulleri", "X berberidifolia X cornelius-mulleri",
            ])
        #expect(Species.storedSpellings(of: "x keepii") == ["x keepii", "× keepii", "keepii", "X keepii"])
        #expect(Species.storedSpellings(of: "× keepii") == ["× keepii", "keepii", "x keepii", "X keepii"])
        #expect(Species.storedSpellings(of: "alba") == ["alba", "× alba", "x alba", "X alba"])
        #expect(Species.storedSpellings(of: " Quercus alba ") == ["Quercus alba", "alba", "× alba", "x alba", "X alba"])
    }

    @Test("the padded list always has the fixed length the lookups bind, ending with repeats of the last spelling")
    func padded() {
        for name in ["alba", "x keepii", "berberidifolia x cornelius-mulleri", "Quercus × bebbiana", "xalapensis"] {
            let padded = Species.storedSpellingsPadded(of: name)
            #expect(padded.count == Species.maxStoredSpellings, "\(name)")
            #expect(Array(padded.prefix(Species.storedSpellings(of: name).count)) == Species.storedSpellings(of: name))
        }
    }
}
