"""Base records every travel task starts from: hotels (two partner hotels in each city, so a traveller can be
relocated), room types, nightly room inventory, three corporate accounts with their negotiated rates and invoice
history.

Tasks add their own travellers, loyalty profiles, bookings, payments and tickets with the factories (and
their own accounts when a task needs a particular standing); they refer to the records below through the
constants. Inventory covers the nights of September and October 2026, half of every room type already sold.
"""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy.orm import Session

from domains.shared.seed import add_rows

from .models import CorporateAccount, Hotel, Invoice, NegotiatedRate, RoomNight, RoomType

# --------------------------------------------------------------------------- hotels and room types

LISBON = "H-101"
LONDON = "H-102"
FRANKFURT = "H-103"
AMSTERDAM = "H-104"
# the second partner hotel of each city (relocations, see "Hotel disruptions and relocation" in policy.md)
LISBON_ALFAMA = "H-105"
LONDON_HOLBORN = "H-106"
FRANKFURT_WESTEND = "H-107"
AMSTERDAM_ZUID = "H-108"

LIS_STANDARD = "RT-1011"
LIS_SUPERIOR = "RT-1012"
LIS_EXECUTIVE = "RT-1013"
LIS_SUITE = "RT-1014"
LON_CLASSIC = "RT-1021"
LON_DELUXE = "RT-1022"
LON_CLUB = "RT-1023"
LON_SUITE = "RT-1024"
FRA_SINGLE = "RT-1031"
FRA_DOUBLE = "RT-1032"
FRA_COMFORT = "RT-1033"
FRA_STUDIO = "RT-1034"
AMS_STANDARD = "RT-1041"
AMS_CANAL_VIEW = "RT-1042"
AMS_LOFT = "RT-1043"
AMS_PENTHOUSE = "RT-1044"
ALF_CLASSIC = "RT-1051"
ALF_PATIO = "RT-1052"
ALF_PRESTIGE = "RT-1053"
ALF_SUITE = "RT-1054"
HOL_STANDARD = "RT-1061"
HOL_SUPERIOR = "RT-1062"
HOL_EXECUTIVE = "RT-1063"
HOL_SUITE = "RT-1064"
WES_SINGLE = "RT-1071"
WES_DOUBLE = "RT-1072"
WES_PREMIUM = "RT-1073"
WES_SUITE = "RT-1074"
ZUI_COSY = "RT-1081"
ZUI_PARK_VIEW = "RT-1082"
ZUI_CORNER = "RT-1083"
ZUI_SUITE = "RT-1084"

# id: name, city, address, free-cancellation hours before check-in, late checkout fee, partner contact, email
_HOTEL_COLUMNS = (
    "id",
    "name",
    "city",
    "address",
    "free_cancellation_hours",
    "late_checkout_fee_cents",
    "partner_contact_name",
    "partner_contact_email",
)
HOTELS = {
    LISBON: (
        "Harbourline Hotel Lisboa",
        "Lisbon",
        "Avenida Infante Dom Henrique 71, 1100-278 Lisboa",
        48,
        4_000,
        "Inês Carvalho",
        "partners@harbourline-lisboa.example.com",
    ),
    LONDON: (
        "The Aldwych Grand",
        "London",
        "14 Aldwych, London WC2B 4DR",
        48,
        5_000,
        "Oliver Pennington",
        "trade.relations@aldwychgrand.example.com",
    ),
    FRANKFURT: (
        "Kestrel Park Hotel Frankfurt",
        "Frankfurt",
        "Mainzer Landstraße 118, 60327 Frankfurt am Main",
        24,
        3_500,
        "Jana Köhler",
        "partner@kestrelpark-ffm.example.com",
    ),
    AMSTERDAM: (
        "Meridian Quay Amsterdam",
        "Amsterdam",
        "Prins Hendrikkade 59, 1012 AD Amsterdam",
        72,
        4_500,
        "Daan Verhoeven",
        "corporate.desk@meridianquay.example.com",
    ),
    LISBON_ALFAMA: (
        "Alfama Terrace Hotel",
        "Lisbon",
        "Rua dos Remédios 42, 1100-441 Lisboa",
        48,
        3_500,
        "Tiago Mendes",
        "b2b@alfamaterrace.example.com",
    ),
    LONDON_HOLBORN: (
        "Holborn Row Hotel",
        "London",
        "88 High Holborn, London WC1V 6LS",
        24,
        4_500,
        "Priya Raman",
        "corporate@holbornrow.example.com",
    ),
    FRANKFURT_WESTEND: (
        "Westend Linden Hotel",
        "Frankfurt",
        "Bockenheimer Landstraße 24, 60323 Frankfurt am Main",
        24,
        3_000,
        "Felix Baumann",
        "partner@westendlinden.example.com",
    ),
    AMSTERDAM_ZUID: (
        "Zuidas Park Hotel",
        "Amsterdam",
        "Gustav Mahlerlaan 310, 1082 ME Amsterdam",
        48,
        4_000,
        "Noor el Amrani",
        "partners@zuidaspark.example.com",
    ),
}

# id: hotel, code, name, rank, rack rate, max occupancy, rooms of that type
ROOM_TYPES = {
    LIS_STANDARD: (LISBON, "STK", "Standard King", 1, 18_900, 2, 40),
    LIS_SUPERIOR: (LISBON, "SRV", "Superior River View", 2, 23_900, 2, 20),
    LIS_EXECUTIVE: (LISBON, "EXE", "Executive Room", 3, 29_900, 2, 10),
    LIS_SUITE: (LISBON, "JSU", "Junior Suite", 4, 41_900, 3, 4),
    LON_CLASSIC: (LONDON, "CLD", "Classic Double", 1, 27_500, 2, 30),
    LON_DELUXE: (LONDON, "DLK", "Deluxe King", 2, 32_500, 2, 20),
    LON_CLUB: (LONDON, "CLB", "Club Room", 3, 39_500, 2, 8),
    LON_SUITE: (LONDON, "ALS", "Aldwych Suite", 4, 62_000, 3, 3),
    FRA_SINGLE: (FRANKFURT, "BSG", "Business Single", 1, 14_900, 1, 50),
    FRA_DOUBLE: (FRANKFURT, "BDB", "Business Double", 2, 16_900, 2, 40),
    FRA_COMFORT: (FRANKFURT, "CPL", "Comfort Plus", 3, 19_900, 2, 15),
    FRA_STUDIO: (FRANKFURT, "STS", "Studio Suite", 4, 26_900, 3, 5),
    AMS_STANDARD: (AMSTERDAM, "CST", "Canal Standard", 1, 21_000, 2, 25),
    AMS_CANAL_VIEW: (AMSTERDAM, "CVW", "Canal View", 2, 25_500, 2, 15),
    AMS_LOFT: (AMSTERDAM, "LFT", "Loft Room", 3, 31_000, 2, 6),
    AMS_PENTHOUSE: (AMSTERDAM, "PHS", "Penthouse Suite", 4, 54_000, 4, 2),
    ALF_CLASSIC: (LISBON_ALFAMA, "ACL", "Classic Double", 1, 17_500, 2, 30),
    ALF_PATIO: (LISBON_ALFAMA, "APT", "Patio Room", 2, 22_500, 2, 16),
    ALF_PRESTIGE: (LISBON_ALFAMA, "APR", "Prestige Room", 3, 31_500, 2, 8),
    ALF_SUITE: (LISBON_ALFAMA, "AST", "Terrace Suite", 4, 44_000, 3, 3),
    HOL_STANDARD: (LONDON_HOLBORN, "HST", "Standard Queen", 1, 25_500, 2, 36),
    HOL_SUPERIOR: (LONDON_HOLBORN, "HSP", "Superior King", 2, 34_000, 2, 18),
    HOL_EXECUTIVE: (LONDON_HOLBORN, "HEX", "Executive King", 3, 41_000, 2, 8),
    HOL_SUITE: (LONDON_HOLBORN, "HSU", "Holborn Suite", 4, 58_000, 3, 2),
    WES_SINGLE: (FRANKFURT_WESTEND, "WSG", "Single Room", 1, 13_900, 1, 40),
    WES_DOUBLE: (FRANKFURT_WESTEND, "WDB", "Double Room", 2, 17_900, 2, 30),
    WES_PREMIUM: (FRANKFURT_WESTEND, "WPR", "Premium Double", 3, 21_500, 2, 12),
    WES_SUITE: (FRANKFURT_WESTEND, "WSU", "Linden Suite", 4, 28_500, 3, 4),
    ZUI_COSY: (AMSTERDAM_ZUID, "ZCO", "Cosy Double", 1, 19_500, 2, 30),
    ZUI_PARK_VIEW: (AMSTERDAM_ZUID, "ZPV", "Park View", 2, 26_500, 2, 14),
    ZUI_CORNER: (AMSTERDAM_ZUID, "ZCN", "Corner Studio", 3, 32_000, 2, 6),
    ZUI_SUITE: (AMSTERDAM_ZUID, "ZSU", "Zuidas Suite", 4, 49_000, 4, 2),
}

INVENTORY_FROM = date(2026, 9, 1)
INVENTORY_NIGHTS = 61  # 1 September to 31 October 2026

# --------------------------------------------------------------------------- corporate accounts

VELDHOVEN = "ACC-201"
CASTELLAN = "ACC-202"
NORRLAND = "ACC-203"

# id: name, credit limit, billing email, travel manager, travel manager email, home city
_ACCOUNT_COLUMNS = (
    "id",
    "name",
    "credit_limit_cents",
    "billing_email",
    "travel_manager_name",
    "travel_manager_email",
    "home_city",
)
ACCOUNTS = {
    VELDHOVEN: (
        "Veldhoven Engineering B.V.",
        4_000_000,
        "crediteuren@veldhoven-eng.example.com",
        "Marloes Bakker",
        "m.bakker@veldhoven-eng.example.com",
        "Eindhoven",
    ),
    CASTELLAN: (
        "Castellan Pharma Ltd",
        6_000_000,
        "accounts.payable@castellanpharma.example.com",
        "Rebecca Ashworth",
        "rebecca.ashworth@castellanpharma.example.com",
        "Cambridge",
    ),
    NORRLAND: (
        "Norrland Timber AB",
        2_500_000,
        "faktura@norrlandtimber.example.com",
        "Erik Lindholm",
        "erik.lindholm@norrlandtimber.example.com",
        "Umeå",
    ),
}

_YEAR_2026 = (date(2026, 1, 1), date(2026, 12, 31))
_UNTIL_AUGUST = (date(2026, 1, 1), date(2026, 8, 31))

# id: account, room type, nightly rate, (valid from, valid until)
NEGOTIATED_RATES = [
    ("NR-0001", VELDHOVEN, LIS_STANDARD, 15_900, _YEAR_2026),
    ("NR-0002", VELDHOVEN, LIS_SUPERIOR, 19_900, _YEAR_2026),
    ("NR-0003", VELDHOVEN, LIS_EXECUTIVE, 24_900, _YEAR_2026),
    ("NR-0004", VELDHOVEN, FRA_SINGLE, 12_400, _YEAR_2026),
    ("NR-0005", VELDHOVEN, FRA_DOUBLE, 13_900, _YEAR_2026),
    ("NR-0006", VELDHOVEN, FRA_COMFORT, 16_500, _YEAR_2026),
    ("NR-0007", CASTELLAN, LON_CLASSIC, 23_000, _YEAR_2026),
    ("NR-0008", CASTELLAN, LON_DELUXE, 27_500, _YEAR_2026),
    ("NR-0009", CASTELLAN, LON_CLUB, 33_000, _YEAR_2026),
    ("NR-0010", CASTELLAN, AMS_STANDARD, 18_500, _YEAR_2026),
    ("NR-0011", CASTELLAN, AMS_CANAL_VIEW, 22_000, _YEAR_2026),
    ("NR-0012", CASTELLAN, AMS_LOFT, 27_000, _UNTIL_AUGUST),
    ("NR-0013", NORRLAND, AMS_STANDARD, 19_000, _YEAR_2026),
    ("NR-0014", NORRLAND, AMS_CANAL_VIEW, 22_500, _YEAR_2026),
    ("NR-0015", NORRLAND, LIS_STANDARD, 16_500, _YEAR_2026),
    ("NR-0016", NORRLAND, LIS_SUPERIOR, 20_500, _YEAR_2026),
    ("NR-0017", NORRLAND, LIS_SUITE, 35_900, _YEAR_2026),
    ("NR-0018", VELDHOVEN, ALF_CLASSIC, 15_500, _YEAR_2026),
    ("NR-0019", VELDHOVEN, ALF_PATIO, 21_500, _YEAR_2026),
    ("NR-0020", VELDHOVEN, WES_SINGLE, 12_900, _YEAR_2026),
    ("NR-0021", VELDHOVEN, WES_DOUBLE, 14_500, _YEAR_2026),
    ("NR-0022", CASTELLAN, HOL_STANDARD, 21_500, _YEAR_2026),
    ("NR-0023", CASTELLAN, HOL_SUPERIOR, 29_500, _YEAR_2026),
    ("NR-0024", CASTELLAN, ZUI_COSY, 17_000, _YEAR_2026),
    ("NR-0025", NORRLAND, ZUI_COSY, 18_000, _YEAR_2026),
    ("NR-0026", NORRLAND, ZUI_PARK_VIEW, 24_000, _YEAR_2026),
    ("NR-0027", NORRLAND, ALF_PATIO, 19_500, _UNTIL_AUGUST),
]

# id: account, amount, issued on, due on, status, paid on
INVOICES = [
    ("INV-26071", VELDHOVEN, 1_284_300, date(2026, 7, 1), date(2026, 7, 31), "paid", date(2026, 7, 28)),
    ("INV-26081", VELDHOVEN, 963_750, date(2026, 8, 1), date(2026, 8, 31), "paid", date(2026, 8, 27)),
    ("INV-26091", VELDHOVEN, 1_107_400, date(2026, 9, 1), date(2026, 10, 1), "issued", None),
    ("INV-26072", CASTELLAN, 2_216_000, date(2026, 7, 1), date(2026, 7, 31), "paid", date(2026, 7, 30)),
    ("INV-26082", CASTELLAN, 1_875_500, date(2026, 8, 1), date(2026, 8, 31), "paid", date(2026, 9, 2)),
    ("INV-26092", CASTELLAN, 1_932_000, date(2026, 9, 1), date(2026, 10, 1), "issued", None),
    ("INV-26073", NORRLAND, 418_600, date(2026, 7, 1), date(2026, 7, 31), "paid", date(2026, 8, 4)),
    ("INV-26083", NORRLAND, 526_300, date(2026, 8, 1), date(2026, 8, 31), "paid", date(2026, 8, 31)),
    ("INV-26093", NORRLAND, 344_900, date(2026, 9, 1), date(2026, 10, 1), "issued", None),
]


def hotel_of(room_type_id: str) -> str:
    """The hotel a seeded room type belongs to."""
    return ROOM_TYPES[room_type_id][0]


def seed(db: Session) -> None:
    """Write the hotels, room types, inventory, accounts, negotiated rates and invoices."""
    add_rows(db, Hotel, _HOTEL_COLUMNS, ((hid, *hotel) for hid, hotel in HOTELS.items()))
    room_type_columns = ("id", "hotel_id", "code", "name", "rank", "rack_rate_cents", "max_occupancy", "rooms")
    add_rows(db, RoomType, room_type_columns, ((rid, *room_type) for rid, room_type in ROOM_TYPES.items()))
    for rid, (*_, rooms) in ROOM_TYPES.items():
        for offset in range(INVENTORY_NIGHTS):
            night = INVENTORY_FROM + timedelta(days=offset)
            db.add(RoomNight(room_type_id=rid, night=night, total_rooms=rooms, booked_rooms=rooms // 2))
    accounts = ((aid, *account) for aid, account in ACCOUNTS.items())
    add_rows(db, CorporateAccount, _ACCOUNT_COLUMNS, accounts, status="active")
    rates = ((nid, aid, hotel_of(rid), rid, rate, *valid) for nid, aid, rid, rate, valid in NEGOTIATED_RATES)
    rate_columns = ("id", "account_id", "hotel_id", "room_type_id", "nightly_rate_cents", "valid_from", "valid_until")
    add_rows(db, NegotiatedRate, rate_columns, rates)
    invoice_columns = ("id", "account_id", "amount_cents", "issued_on", "due_on", "status", "paid_on")
    add_rows(db, Invoice, invoice_columns, INVOICES)
    db.flush()
