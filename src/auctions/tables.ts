// Table types of the auctions face, composed into Tables in src/db/tables.ts.
export interface AuctionsTables {}
