-- Does not compile: busted and tycho test count it as one error.
describe("broken", function()
  it("never runs", function(
end)
