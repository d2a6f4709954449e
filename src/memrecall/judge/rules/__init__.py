"""The `rule` judge: deterministic per-type rules that approximate LongMemEval's judge offline.

LongMemEval's official judge is gpt-4o with one prompt per question type (docs/tools.md).
These rules follow the same per-type policy without a model, so the default pipeline runs offline:

- abstention (`_abs`): correct when the response says the information is missing (the phrase list of
  memrecall.abstention, shared with the refusal classifier: "never mentioned", "couldn't find any
  record", "can't determine", "none mentioned", "not in my records", "you mentioned X but not Y",
  "X, not Y", "the history is silent on it", "I couldn't locate any", ...; a note that nothing
  later changed the answer, "No later session updates that figure", "You haven't mentioned
  changing it since", says nothing is missing, while "You didn't mention changing jobs" does), or
  asks the user for it ("could you tell me which day it was?", "I'd need more details"), or opens
  by denying the question's premise ("You don't play table tennis. You play tennis every other
  week."). Not one to a which-came-first question whose last sentence places an option anyway
  ("There is no mention of Tom. Therefore, Alex became a parent first."): that answers.
- single-session-preference: the reference is a rubric. Correct when the response uses the user's
  own details the rubric names: one proper noun or number from its positive sentences (Sony,
  Luna, 9:30; a sentence whose own verb says the user would not want something, "might not
  prefer", "would dislike", "should avoid", is negative, and one whose preference holds a "do
  not" is not; a word a negative sentence uses for what they would not want, "more true crime
  podcasts", is no detail of theirs, while what follows its own "that don't take into account"
  is), or one two-word detail (turbinado sugar, also written apart or turned round:
  "granulated sugar for turbinado"), or three distinct single detail words.
  Rubric boilerplate (prefer, suggestions, high-quality, ...) and the question's words don't count.
  A response that says it lacks the user's information is wrong unless it names such a proper
  noun or number ("I don't have your history, but I know you like Sony"), or tells the user a
  two-word detail it recalls of them ("I didn't find anything on reunions, but I did find that
  you were on the debate team"), and one that says the advice it gives is general ("I'll
  provide some general tips", "here are some great general tips") is wrong whatever it names, as
  is one that opens by offering generic options ("Here are some popular options") and nowhere
  draws on the user's history ("you mentioned", "since you loved"; a bare "Based on our previous
  conversations" is style, not recall).
- any other answerable question: a response that opens by saying it cannot answer ("I cannot
  determine that. The messages mention ...", "I don't have sufficient information to answer",
  "I'm unable to retrieve those details") is wrong, whatever facts it lists, unless it turns
  after the decline ("I cannot say exactly, but it was X"). A greeting or acknowledgement
  ("Sure!", "Great question!"), a heading, a status line ("Searching memory..."), a line that
  announces what follows ("Here's what I found:"), an apology for an earlier turn ("I apologize
  for any confusion earlier."), what it says it does to find the answer ("I'll go through the
  sessions first.", unless it says what it could not find there) or a list number before it is
  not where it opens. Nor is a response that closes by saying so, in its last paragraph before a
  closing offer, sign-off or notes on itself ("Sources: session 3", "Note: this is based on the
  information in my memory.", "I'm fairly confident in this, but ...", "No later session
  updates this."): "You joined three weeks ago ... That message gives no date, so there is not
  enough information to say how long."; or one that opens by denying what the question asks
  about ("Based on the history, you did not fix a bike last weekend."), unless the question asks
  yes or no ("You never replaced it" answers "no"). Either is right after all when it works the
  asked quantity out on the way ("I can't say exactly. You started on March 2 and finished on
  March 18, which would suggest about 16 days"; "If both count, about 2 months would have
  passed"): the official prompt counts a response with all the intermediate steps to the
  correct answer as correct. A which-came-first response that places an option has answered,
  however it declines or hedges around it ("I cannot determine with certainty which came first.
  ... so the birdhouse most likely came first").
- a value the response found and then says refers to something else ("a limited edition of 500
  copies. However, this refers to the poster, not the album") is set aside, not its answer.
- a line that restates the question ("**Question:** Which came first, A or B?") is not read: the
  question's own words name every option and item, and answer nothing.
- a reference is read for what it says, not how it is written: "The user bought ..." and "The
  assistant recommended ..." name who spoke as "You" and "I" do, "20%" is "twenty percent", a
  duration in words is a clock reading too ("twenty-seven minutes and forty-five seconds" is
  "27:45"), and an approximation or a total around its number ("approximately 20%", "132 points
  in total") frames it: "About 20%" and "132 points" answer them.
- what a question asks is read from its asking sentences: "Hi!", "I'm trying to remember
  something." or "Thanks!" around it, a "please", an opening before a colon ("Quick question:
  ...") or an indirect question's opening ("Can you remind me which ...?") change nothing of the
  options, the claim, the superlative or the count it asks for.
- yes/no references ("Yes."): the response's first yes/no word must agree ("no" as a determiner,
  "there is no mention" or a line that opens "No mention of ...", is not one; an emphasised or
  dashed one is, "the answer is **no** — ..."; a "Yes/No:" label is not; "Definitely not" is a
  no). Without either word, a bare "You do!", an emphatic or negated "do" ("You do have one",
  "You did not go", "You no longer have it"), an opening "I'm afraid not" or "Not that I know
  of", or the first statement
  that restates more than half of the question's content words says which ("Therefore, you
  received a higher discount from A"; negated before its last restated word, no: "the museum
  visit was not with a friend"); an indirect question, an offer or a statement that the
  detail is missing does not.
- reasoning transcripts ("Step 1: extract ... Step 3: conclusion", "Therefore, my answer is",
  "..., so my final answer is X") and sums closed by a labelled line ("**Total: about 11
  weeks**"): numbers, yes/no and contained words are read from the conclusion, not from the
  evidence or the parts listed before it.
- a labelled answer (a JSON object's "answer" field, an `<answer>` tag, an "Answer:", "Short
  answer:" or "TL;DR:" line that a "Reasoning:", "Explanation:", "Evidence:", "Sources:", "Long
  answer:" or "Confidence:" section follows, or that opens the response (after a greeting,
  lead-in or list number on its line too: "Sure! **Answer: ...**") or closes it (before a
  closing offer or note on itself), or an agent trace's "Final Answer:") is what the response
  answers; the reasoning or notes set apart after it are not read, except that an abstention
  anywhere still abstains. A "Note:" can qualify the answer ("Note: the count may now be 38"),
  so it is not set apart unless it is about the response itself.
- a leading `<think>...</think>` block (a reasoning model's thinking, kept in some published
  runs; also `<thinking>`, `<thought>` or `<reasoning>`, the tags chain-of-thought prompts ask
  for) is not read: the answer is what follows it, and one cut off inside it is empty.
- retractions ("Actually, no, that's not right: it was X", "scratch that", "I was wrong", "I take
  that back", "never mind", "or rather", "my mistake", "that was a mistake"): the response is
  read from after its last retraction; one that takes its answer back and gives no other is
  wrong. "If that's not accurate, tell me" supposes; it takes nothing back.
- settling: an answer the response settles on after wavering ("Wait, I need to correct that:",
  "..., so the answer is X", "That leaves X", "..., but it's actually X", "Going with the
  latest: X", "The latest answer is X") or after saying that what it named was replaced ("You
  originally said A, but you corrected it later: B", "a more recent message updates that to B",
  "a more recent session says B", "then later said it was B", "you later clarified it was B",
  "A, but that was superseded by B", "A is outdated", "The correct figure, from your later
  message, is B") must be right too, and an either-or, order
  or list question is read from what replaced it; a denied replacement ("No later session
  updates that figure", "You never changed it") replaces nothing, nor does a value that names
  no option of an either-or question ("updated it to 5 ounces" for "more water or less?"). A
  question that asks for the earlier value ("my previous goal", "my last name before I changed
  it"; of a knowledge update, also "when I first started") is answered by the updated one, not
  by what it was updated to; a correction ("corrected it later", "the correct figure is") says
  the earlier telling was wrong, and replaces it all the same. An earlier value the question
  measures against ("How much more than my initial goal?", "compared to my previous time")
  is a term of the answer, not the value asked for. In a unit question, a bare number the
  response denies ("4, not 6"), calls former ("you originally said 5, but corrected it later:
  3") or settles past ("I first thought of 18 ... That leaves 12") leaves the other standing
  alone. "That doesn't fit what you said" compares; it says nothing is missing. "I first
  thought of the car" says when the speaker thought it, not which came first.
- quantities ("how many/much/long/old", "what time", or a reference that is just a number): some
  number in the response equals the reference (each of them, when two questions ask two: "How
  many then? How many now?") after unit conversion (weeks↔days, years↔months,
  hours↔minutes, dozens↔a count: "two dozen" answers 24 and "how many dozen" 2; across the
  calendar families to the nearest whole unit: "8 weeks" is 2 months), a compound duration
  being one number ("4 years and 9 months" = 57 months); dates ("7/22"), ordinals and years are not
  read as counts, nor labels ("Session 3", "Step 2") or the operands of a sum ("8 days + 6 days = 14
  days" gives 14), nor the "one" that picks an item out of a group ("one of several", "one of the
  highlights"; "only one of them" counts); a hedge over two counts ("one or two") is a range like
  "1-2", right at either end, and a range's unit is both ends' ("10 to 12 hours"); "how many
  times" is answered by any count ("10 rides", "12 games"); a time back from now ("three weeks
  ago") answers only a question that counts back from now ("How many weeks ago ...?", "How
  many months have passed since ...?"), not how long something lasted;
  for a question in a unit, a bare number counts only when it stands alone ("It was 14."), or is
  given as the answer ("the most likely answer is 33"), not when it counts a noun ("2 events"),
  nor when it is a count the question gives ("my three road trips"), which in a response that
  says what is asked is missing holds even where it equals the reference ("I found no two
  events on consecutive days" for "How many months since my two events ...?");
  "around age 27" and "at the age of 27" are 27 years; "close to 1,300" and "almost 5" give no
  number (they say it was not reached); a message's timestamp ("2023/05/20 (Sat) 06:42") is no
  time of day the response reports, and a confidence note ("Confidence: 3 out of 5", "80%
  confident") or a citation ("[3]") no answer.
  A reference in another unit than the question counts in is read in the question's unit when
  it is a whole number of it ("14 days" for "How many weeks ...?" is 2 weeks: a bare "2" answers
  it); cents are hundredths of a dollar ("75 cents" is $0.75), and "£30" is 30 pounds. A count in
  dozens is a count where the question does not ask in dozens ("a dozen" eggs: "12 eggs"; "a
  dozen times" is 12 times). A reference's time without am/pm ("25:50", a run's time) is also
  answered by that duration ("25 minutes and 50 seconds"), and one in minutes and seconds by
  "27:45".
  temporal-reasoning accepts off-by-one for day/week/month/year counts, one of the question's
  unit where it names one (never a count of 0: "the
  same day" is no near miss of "1 day"), and the reference's own "N is also acceptable" or "(or
  N, if ...)" is accepted too. Any matching number counts, so "20
  before, 25 now" is right for a knowledge update to 25; but one the response calls former
  ("previously 4, now 3", "from 25:50 to 24:30", "4 → 7", "4 initially, later updated to 7",
  "bumped it up to 7 from 4", "advanced from the 4", "Before, you had 4", "you started with 4",
  "4 was your earlier
  answer", "Earlier, on May 24, you had completed 4", "You first mentioned 4, and later ...")
  is not its answer when it gives another, nor, of values dated with their years, one dated
  before another ("4 as of August 2023, and then 7 by October 9, 2023"); and one it calls
  current ("7 now", "7 is the current one", "the current count is 7", "your current personal
  best time in the 5K is 27:12"; not "the current date is") is, unless the question
  asks for an earlier value ("when I first started", "my previous goal"): then, in a knowledge
  update, the value called former answers. Measures (miles, km, feet;
  pounds, kg, ounces) convert within their family, and one in another unit counts as written,
  rounded ("19 km" answers 12 miles, "12 km" does not); "miles per gallon" is a rate, not a
  length. A decimal over its scale ("3.61/4.0") is the score; a table's "#" column numbers rows
  and counts nothing; an ordinal in digits of what a "how many" question counts gives the count
  ("your 5th project"; "a second bike" is another one); a question about two things
  ("tomatoes and cucumbers") is answered by exactly two parts that add up to the reference,
  unless the response says a part is missing; and a "how long had I ... when" question by two
  times before now that are the reference apart ("three weeks ago" and "a month ago" for one
  week), when the response states no duration and says nothing is missing.
- frequencies ("every week", "weekly", "once a week", "1x/week", "every 7 days", "every other week",
  "biweekly", "every fortnight"): the response must give the reference's period, so "every two
  weeks" is not "every week"; a reference that gives two ("previously every week, now every other
  week") needs both, in its order.
- order questions: the reference's named entities must appear in the response in that order (or
  reversed, in a list the response says it gives latest first, "From last to first: C, B, A",
  when the question did not ask for that direction); an item of a reference written as a
  sequence or a numbered list is placed by any one of its names ("Zion" for "I hiked in Zion
  National Park in Utah"), and a lone letter names nothing; a reference without names written
  as a sequence ("First, I did A, then B, and lastly C") orders its steps, each found by a third
  of the words no other step shares ("the airport run" for "I drove my aunt to the airport").
  Where the response states the order after its evidence ("So the chronological order is:",
  "from earliest to latest:") and places every item there, that statement is read, not the
  evidence listed by date before it. A response that opens by saying the information is
  missing gives no order ("I'm sorry, but I found no record of A, B or C": what follows a turn
  decides).
- either-or questions ("A or B?"): for which-came-first/last questions, the option the response
  places with a placing word ("B came first", "A happened after that", "B predates A", "B was
  the first trip"; the question's own word wins over synonyms, the last such statement over
  earlier ones, and an indirect question "whether A or B came first" is no statement; a time
  before a date, "B two weeks before May 25", places nothing, while "B two weeks before A"
  places B first, and an ordinal that dates a time, "A's first birthday", places nothing; nor
  does what the history does not say: "You did not mention taking a bus recently" places no
  bus). Without a placing word, the times before now it gives each option place them ("the
  router 3 weeks ago, and the thermostat a month ago": the thermostat first), unless the two
  times can overlap ("4 weeks" and "a month"). Otherwise
  the response names the reference's option, and names it first if it names both; a response
  that reasons over both is read from its conclusion, the last sentence naming one with a
  decision word ("first", "so", "therefore"), never one that says what the history does not
  say while another decides ("There is no mention of a bus after that date"); the alternatives
  restated ("between a bus and a train", "either A or B") name neither, and a comparative the
  question elides to one word ("more water per tablespoon, or less?") names its option only
  with the question's words after it or alone ("less water", "less."), not where it compares
  something else ("stronger and more concentrated"). A response that opens
  by saying the information is missing and places neither option chooses neither, and so does
  one whose concluding sentence says it ("no record of Tom, so I'm unable to tell who you met
  first").
- questions that list three or more options ("6S, MAJA, and Sen2Cor ... which one is
  implemented in SIAC_GEE?") with a reference in the question's own words: the answer is the
  option the reference names, and the response's first sentence naming one option alone must
  name it (the list restated names none); the reference's framing words need not be repeated.
- superlative questions ("Which platform did I gain the most followers on?", a reference that is
  a name): the response's first statement with the question's superlative must name the
  reference; one that names something else there ("X is where you gained the most") does not
  answer by naming the reference later as a compared option, unless the statement is negated or
  conditional ("if I recall correctly" and "I'm not sure, but" say how sure it is, and are
  neither).
- a date reference ("June 3rd") is its month and day together ("the 3rd of June"), not a month
  and a day number anywhere in the response ("June 10th ... session 3"); a holiday on a fixed
  date names it ("Valentine's Day" is February 14; not "Christmas" alone, nor national days).
- examples listed in an aside ("the amount of RAM (e.g., 8GB, 16GB) was not mentioned"), a
  worked example on a supposed value ("If you packed, say, 5 pairs, that would be 40%") and
  conditionals listed as examples ("For example:\n- If you packed 4 pairs, you wore 50%\n- If
  ...") are possibilities the response names, not its answer; one conditional that carries the
  answer with its caveat ("If the workshop counts too, the total is $720") answers.
- otherwise: normalised containment: every content word of the reference that the question does not
  already contain must appear in the response (so a subset of a list is wrong, and extra
  information is fine); the numbers that enumerate a reference's items ("1) ..., 2) ...") count
  nothing. Parenthetical asides are optional; "(UCLA)"-style acronyms and a closing
  "(or 25:50)" are other forms, and so is what precedes a restatement ("1:10, meaning one part to
  ten parts", "i.e.", "that is"), and so is a named place without the trailing "in/at <Name>" that
  locates it ("University of Melbourne in Australia"), a quoted title without the "by <Name>" that
  credits it, the parts of "a mix of Irish and Italian" without the mix, and a two-unit duration as
  a clock reading ("27:45" for "27 minutes and 45 seconds"); a Roman-numbered part is the same part
  ("Book I", "Book 1"); a sentence-long reference's framing ("I recommended", "meaning", "as
  examples") is optional, and a reference of four words or more may miss one in four, a verb or
  modifier that frames it ("Planted 12 tomato saplings" for "planting 12 new tomato saplings";
  never a number, a name it capitalises, nor the word that makes a choice the question offers).
  For a knowledge update asked of now, a reference the response names only as a former value
  ("you used to go to X", "X → Y", "you moved to Y from X", "X, but you've since switched to Y")
  or outside what it labels current ("Currently: Y") is not its answer.

Normalisation: case, punctuation, number words ("three" → 3, "twelve thousand" → 12000, "one
hundred and fifty" → 150, "twice" → 2 times, multiples ("worth triple what I paid", "tripled", "3x"
→ 3 times; not "a double room"), "$1.5M", "$2bn" and "1.2K USD", times in words ("seven thirty",
"half past seven", "quarter to eight", "seven o'clock", "noon"), "5½" and "five and a half" → 5.5),
thousands separators, "400 thousand" and "$1.2k", "12k" and "1.3K" (not a race's or a screen's
"5K" or "4K TV"), a unit's abbreviation after its number ("45 mins", "3 wks", "10 lbs") written
out, a.m./p.m. and "7.30am", written dates ("Feb.
1st", "2023-02-01" and the haystack's "2023/02/01" → february 1; "2/13/2023" and "13/02/2023", not
the ambiguous "2/3/2023"; day first, "25 March 2023" → march 25, 2023), "an hour and a half", "half
a year", "half a decade", "a quarter of an hour", "a fortnight", "a decade" and "1h30", a unit
glued to its number ("45min", "3wks", "27yo", "20 pct"), youtu.be links as youtube.com ones,
session ids ("answer_54f0d6f9_1", whose numbers count nothing), possessives, light plural/-ed/-ing
stemming ("scrubbing", "dried" → scrub, dry; "baking", "baked" → bake), "&" for "and" and "~20%"
for "approximately 20%". A response's HTML ("<br>", "<p>", "<b>", "<li>", "&amp;"), underscore
emphasis ("__7 PM__") and non-breaking spaces read as the Markdown and text they stand for. An age
question counts in years.

These rules under-credit paraphrases ("Southwest" for "Southwest Airlines") and over-credit
hedges that list several numbers; tests/fixtures/judge_cases.yaml lists the known disagreements.
A rule-judged score is NOT comparable with LLM-judged published numbers; reports say so.

Modules, one per rule family: normalise (text and number words), numbers (quantities and the
temporal tolerance), abstention, preference (rubrics), choice (yes/no, either-or), order,
containment (the general rule), dispatch (`judge_one`: which family decides).
"""

from .abstention import abstains
from .dispatch import as_read, judge_item, judge_one
from .normalise import content_tokens, normalize, stem, tokens
from .numbers import Quantity, quantities
from .verdict import RULES_VERSION, RuleVerdict

__all__ = [
    "RULES_VERSION",
    "Quantity",
    "RuleVerdict",
    "abstains",
    "as_read",
    "content_tokens",
    "judge_item",
    "judge_one",
    "normalize",
    "quantities",
    "stem",
    "tokens",
]
