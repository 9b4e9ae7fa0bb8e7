"""The words and phrases the scripted user knows: names of facts, word tables and the patterns of agent messages."""

from __future__ import annotations

import re

# Names people use for the same fact; a fact key matching one name is asked for by any of them. A task's
# and its domain's `aliases` add groups of their own (merged with these where they share a name).
SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("date of birth", "birth date", "birthdate", "dob", "d o b", "birthday", "when born"),
    ("postal code", "postcode", "post code", "zip", "zip code", "zipcode"),
    ("order id", "order number", "order no", "order #", "order reference", "order ref"),
    (
        "booking reference",
        "booking ref",
        "booking number",
        "booking id",
        "confirmation code",
        "confirmation number",
        "reservation number",
        "reservation reference",
    ),
    ("group reference", "group booking reference", "group booking number", "group id"),
    ("email", "e mail", "email address", "e mail address", "mail address", "work email"),
    ("phone number", "phone", "telephone", "mobile number", "mobile"),
    ("policy number", "policy id", "policy no", "policy reference"),
    ("account number", "account id", "account no"),
    ("employee id", "employee number", "staff number", "staff id"),
    ("return number", "return id", "return reference", "rma", "return authorization"),
    ("vin", "vehicle identification number", "chassis number"),
    ("iban", "account number of the beneficiary", "beneficiary account"),
    ("licence number", "license number", "driving licence number", "driver license number", "licence"),
    ("street address", "address", "home address"),
    ("recognize", "recognise", "know about", "familiar with"),
    ("claim number", "claim id", "claim reference"),
    ("card number", "card no", "number on the card", "long number on the card"),
    ("full name", "name", "first and last name"),
    ("total", "amount", "sum"),
)
# British spellings read as American ones, so either names a fact written with either.
_SPELLING = {
    "recognise": "recognize",
    "recognised": "recognized",
    "authorise": "authorize",
    "authorised": "authorized",
    "authorisation": "authorization",
    "organisation": "organization",
    "cancelled": "canceled",
    "cancelling": "canceling",
    "licence": "license",
    "colour": "color",
    "centre": "center",
    "travelling": "traveling",
    "traveller": "traveler",
    "cheque": "check",
    "favour": "favor",
    "enrol": "enroll",
}
# Chat shorthand and irregular verb forms, read as the words they stand for.
_SHORTHAND = {
    "ur": "your",
    "u": "you",
    "pls": "please",
    "plz": "please",
    "whats": "what",
    "thx": "thanks",
    "sold": "sell",
    "bought": "buy",
    "paid": "pay",
    "drove": "drive",
    "driven": "drive",
}
# Question words that carry what they ask for: "when" asks for a date, "who" for a name, "how much" an amount.
_QUESTION = {"what": "what", "which": "which", "whose": "whose", "when": "date", "who": "name"}
_TOGETHER = {("how", "much"): "amount", ("as", "well", "as"): "&", ("along", "with"): "&", ("together", "with"): "&"}

_STOP = {
    "a", "an", "the", "of", "or", "and", "your", "my", "to", "for", "on", "in", "with", "you", "is", "do", "are",
    "was", "were", "be", "it", "that", "this", "we", "i", "me", "us", "s",
}  # fmt: skip
# Words that may stand before the name of what is asked for: "what is *your current* postcode".
_FILLER = {
    "the", "a", "an", "your", "this", "these", "those", "its", "our", "of", "me", "us", "out", "back", "up",
    "is", "are", "was", "were", "be", "do", "does", "did", "will", "would", "should", "can", "could", "may",
    "also", "just", "again", "please", "kindly", "exactly", "still", "now", "then", "current", "registered",
    "actual", "that",
}  # fmt: skip
_SEPARATORS = {",", ":", "and", "or", "plus", "&"}
_PRONOUNS = {"it", "them", "that", "this", "those", "they"}  # "what is it?": the fact just named
_SUBJECTS = {"you", "anyone", "anybody", "someone", "somebody", "it", "they", "he", "she", "i", "we"}
_CONSENT = {"happy", "ok", "okay", "willing", "fine", "able", "prepared", "alright", "handy", "hand", "available"}
_POLITE = {"please", "thanks", "thank", "again", "also", "then", "now", "too", "just", "first"}
_AUX = {"is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could", "will", "would", "may"}
# Someone other than the user: "the date of birth *of your son*" is not the user's date of birth.
_PEOPLE = {
    "person", "son", "daughter", "wife", "husband", "partner", "driver", "employee", "colleague", "joiner",
    "leaver", "consultant", "analyst", "manager", "traveler", "guest", "beneficiary", "recipient", "him", "her",
    "them", "mother", "father", "boss", "friend", "child", "children", "starter",
}  # fmt: skip
_PREPOSITIONS = {"of", "for", "to", "on", "in", "at", "from", "with", "by", "about"}
_IDENTIFIERS = {"number", "reference", "ref", "id", "code", "no", "#"}

# Verbs that ask for what follows them: any form of "give", "tell" ... unless the agent is the subject
# ("I can confirm your order"); "have", "know" ... only as questions ("do you have", "can I have").
_ASKING_VERBS = {
    "give", "tell", "share", "provide", "confirm", "send", "read", "spell", "state", "quote", "supply",
    "repeat", "enter", "type", "verify", "mention",
}  # fmt: skip
_WANTING_VERBS = {"need", "require"}
_HOLDING_VERBS = {"have", "got", "know", "remember", "take", "grab", "get"}
_WINDOW = 3  # extra words allowed between the words of one name ("date of your birth")

_ASKING = r"need|require|provide|share|tell me|give me|send me|let me know|let me have|confirm|verify|state"
# A request for information without a question mark ("Please tell me ..."), as opposed to "Please keep the box".
_INFORMATION = re.compile(rf"\b({_ASKING})\b")
_REQUEST = re.compile(rf"\b(please|kindly|{_ASKING})\b")  # a sentence that may ask: "Email, please."
# A proposal awaiting the user's go-ahead, as opposed to a question for information.
_PROPOSAL = re.compile(
    r"\b(shall i|should i|do you want me to|would you like me to|can i go ahead|may i go ahead|may i proceed|"
    r"is it ok(ay)? (if|for me to|to)|okay to|ok to|do you agree|happy for me to|want me to|go ahead|proceed)\b"
)
_CLOSING = re.compile(
    r"\b(anything else|something else|any other questions?|goodbye|bye|take care|"
    r"have a (great|good|nice|lovely|safe) (day|evening|weekend|trip|stay|journey))\b"
)
_SMALL_TALK = re.compile(
    r"\b(how are you|how are things|how is it going|how it going|how is your day|how your day|how have you been|"
    r"hope you are (well|having|doing)|hope you (well|having|doing)|hope all is well)\b"
)
# The agent at work, asking nothing: "let me check", "one moment", "I'll pull up your order now".
_STATUS = re.compile(
    r"\b(let me (check|look|see|pull|find|verify|review|take|get|have a look|process|update|sort|go|just|quickly)|"
    r"(one|a|just a|give me a) (moment|sec|second|minute)|bear with me|hold on|please (hold|wait)|"
    r"i (will |am going to |going to )?(now |just |quickly )?(check|look|pull|find|verify|review|take|get|process|"
    r"go ahead|update|see|contact|raise|open|cancel|refund|issue|arrange|book|send|add|remove|start|set|"
    r"escalate|forward|reach out|do)|i (am|m) (now |just )?(checking|looking|pulling|reviewing|processing|"
    r"updating|working|going)|(checking|looking into) (that|this|it|now|your)|while i (check|look|pull|review))\b"
)
# A refusal: "I can't", "is not possible", "our policy does not allow", "you are not eligible".
_REFUSAL = re.compile(
    r"\b(cannot|can not|unable|not able to|will not be able|not eligible|ineligible|not possible|impossible|"
    r"not allowed|not permitted|(does|do) not (allow|permit|cover|qualify)|not covered|not qualify|decline|"
    r"declined|refuse|refused|denied|deny|no longer|not in a position|afraid|unfortunately)\b"
)

_BETWEEN = _STOP | _FILLER | _SUBJECTS  # words that may stand between the words of one name
_IGNORED = _STOP | _FILLER | _SEPARATORS | _SUBJECTS | _CONSENT | _POLITE | _AUX | {"what", "which", "there"}
