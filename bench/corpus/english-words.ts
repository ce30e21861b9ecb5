/**
 * Real English words as books print them (bench/search.ts, issue 17): function words, and nouns,
 * verbs (in their inflected forms), adjectives and adverbs of general, historical, religious and
 * scholarly prose. `englishHead`: the most frequent words, most frequent first. `englishBody`: the
 * rest, in no order (the generator ranks them with a seeded shuffle).
 */

const words = (text: string): string[] => text.split(/\s+/).filter((w) => w !== '');

const head = `
the of and to in a is that for it as was with be by on not he his which this are from at
or but have an they had were their one all been has there would we so who if more when
`;

const body = `
will no can its them said what about out into up do than other some only time could these two may
then first any my now such like our over man me even most made after also did many before must
through back years where much your way well down should because each just those people how too
little state good very make world still own see men work long get here between both life being
under never day same another know while last might us great old year off come since against go
came right used take three himself few house use during without again place around however home
small found thought went say part once general high upon school every does got united left
number course war until always away something fact though water less public put think almost hand
enough far took head yet government system better set told nothing night end why called
eyes find going look asked later knew point next program city business give group toward young let
room president side social given present several order national possible rather second face per
among form important often things looking early white case john become large big need four within
felt along children saw best church ever least power development light thing seemed family
interest want members mind country area others although turned done open god service certain kind
problem began different door thus help sense means whole matter perhaps itself york times law human
line above name example action company hands local show whether five history gave today either act
feet across taken past quite anything having seen death experience body half really week words
field car already information tell together college shall money period held keep sure probably
free seems political real behind cannot miss question air office making brought whose special
heard major problems ago became federal moment study available known result street economic boy
position reason change south board individual job society areas west close turn love community
true court force full seem am policy wife future age voice center woman control common necessary
following front sometimes six girl clear further land run students provide feel party able mother
music education university child effect level stood military town short morning total outside rate
figure class art century washington north usually leave therefore evidence percent black hundred
strong believe plan ten wanted read lines book books author authors writing written wrote write
writes writer writers page pages chapter chapters volume volumes text texts letter letters word
story stories poem poems poet poets poetry verse verses language languages arabic english latin
greek persian hebrew translation translated translator manuscript manuscripts library libraries
scholar scholars scholarship learning learned teacher teachers teaching taught student pupil lesson
lessons knowledge wisdom science sciences philosophy philosopher philosophers logic reason reasons
argument arguments proof doctrine doctrines theology law laws jurist jurists judge judges ruling
rulings religion religious faith belief beliefs believer believers prayer prayers prophet
prophets messenger revelation scripture quran gospel torah psalms mosque mosques temple pilgrimage
fasting charity mercy forgiveness sin sins soul souls heaven paradise hell angel angels spirit
spiritual sacred holy divine worship worshippers blessing blessings peace justice truth falsehood
good evil virtue virtues vice patience gratitude humility pride honesty honor shame fear hope
joy sorrow grief anger kindness generosity courage wise foolish fool king kings queen prince
princes caliph caliphs sultan sultans emperor empire empires kingdom kingdoms dynasty dynasties
ruler rulers reign throne palace court courts army armies soldier soldiers battle battles siege
victory defeat conquest conquered invasion enemy enemies ally allies treaty peace rebellion revolt
city cities town towns village villages river rivers sea seas desert deserts mountain mountains
valley valleys island islands coast road roads bridge gate gates wall walls tower market markets
trade merchant merchants caravan caravans ship ships journey journeys traveler travelers travel
traveled pilgrim pilgrims guest guests stranger strangers friend friends brother brothers sister
sisters father fathers son sons daughter daughters husband wives widow orphan orphans tribe tribes
clan nation nations people peoples west east western eastern northern southern baghdad damascus
cairo mecca medina jerusalem cordoba andalusia persia egypt syria iraq arabia india china rome
byzantium constantinople africa europe asia spring summer autumn winter rain snow wind storm sun
moon star stars sky earth stone stones tree trees garden gardens flower flowers fruit fruits bread
wine milk honey meat salt gold silver iron copper wood cloth silk wool horse horses camel camels
sheep cattle dog lion bird birds fish animal animals plant plants seed seeds harvest field fields
farmer farmers shepherd fire smoke ash dust sand shadow shade darkness morning evening noon
midnight dawn dusk sunset sunrise hour hours minute minutes day days month months season seasons
decade decades generation generations ancient modern medieval classical early later late recent
beginning middle ending begin began begun ending ended ends finish finished start started starts
continue continued continues remain remained remains stay stayed return returned returns arrive
arrived arrives depart departed leave leaving left enter entered enters exit follow followed
follows lead led leads rule ruled rules govern governed serve served serves obey obeyed command
commanded commands order ordered orders forbid forbade forbidden permit permitted allow allowed
speak spoke spoken speaks speech speeches talk talked says saying sayings tell told tells answer
answered answers ask asks asking question questions reply replied call calls calling named names
write wrote read reads reading readers copy copied copies compose composed composition edit edited
edition editions print printed printing publish published publisher press collected collection
collections compiled compiler commentary commentaries gloss notes note footnote index preface
introduction conclusion appendix title titles subject subjects topic topics theme themes content
contents summary section sections paragraph sentence sentences phrase phrases meaning meanings
sense senses definition grammar syntax morphology rhetoric eloquence style prose narrative
narration narrator narrators report reports reported account accounts chronicle chronicles
biography biographies tradition traditions transmission transmitted chain authority authorities
source sources reference references evidence witness witnesses testimony claim claimed claims
opinion opinions view views position positions school schools disagree disagreed disagreement
agree agreed agreement consensus debate debated dispute disputed discussion discussed discuss
explain explained explains explanation describe described describes description mention mentioned
mentions refer referred refers cite cited quote quoted quotation interpret interpreted
interpretation understand understood understanding know knew known knows think thinks thinking
believe believed believes consider considered considers regard regarded judge judged decide
decided decision choose chose chosen choice prefer preferred learn learns learned study studied
studies teach teaches taught memorize memorized recite recited recitation listen listened hear
hears hearing see sees seeing saw seen look looked looks watch watched observe observed notice
noticed find finds found discover discovered search searched seek sought lose lost losing gain
gained win won give gives given giving take takes took taking bring brings brought carry carried
send sent sends receive received receives accept accepted reject rejected refuse refused deny
denied build built builds building buildings make makes made making create created creation
destroy destroyed destruction burn burned break broke broken fall fell fallen rise rose risen
raise raised stand stands stood sit sat sitting lie lay sleep slept wake woke walk walked run ran
ride rode ridden fight fought kill killed die died dies dying live lived lives living born birth
grow grew grown growing change changed changes turn turned turns move moved moves moving open
opened close closed pass passed passes cross crossed reach reached reaches meet met meets meeting
join joined gather gathered assembly council gathering visit visited visits dwell dwelt settle
settled settlement found founded foundation establish established establishment restore restored
reform reformed pray prayed praying fast fasted give thanks praise praised bless blessed curse
cursed repent repented forgive forgave forgiven love loved loves hate hated fearful afraid hoped
wish wished desire desired need needed needs want wants seek try tried tries attempt attempted
fail failed failure succeed succeeded success help helped helps support supported protect
protected defend defended attack attacked conquer rebel rebelled escape escaped flee fled capture
captured release released free freed slave slaves servant servants master masters lord lords
new old young older younger oldest great greater greatest small
smaller smallest large larger largest long longer longest short shorter high higher highest low
lower lowest wide narrow deep deeper strong stronger strongest weak weaker rich richer poor poorer
true false right wrong good better best bad worse worst easy easier hard harder difficult simple
clear clearer obvious hidden secret open public private common rare rarer famous known unknown
beautiful ugly fair just unjust wise wiser pious righteous wicked cruel gentle kind noble humble
proud brave bold fearless faithful loyal honest truthful learned ignorant skilled able unable
certain uncertain possible impossible necessary sufficient complete incomplete perfect whole
entire full empty alive dead living sick healthy ill tired hungry thirsty happy sad glad angry
calm quiet silent loud bright dark light heavy hot cold warm cool dry wet sweet bitter fresh
ancient eternal endless final last first second third fourth fifth sixth seventh tenth hundredth
thousand thousands million many few several numerous countless various different similar same
equal other another else each every either neither both all none some any most more less least
much little enough only also too very quite rather almost nearly hardly scarcely barely just
already still yet soon later early often seldom rarely sometimes usually always never again once
twice thrice here there everywhere nowhere somewhere where wherever whenever whatever whoever
however therefore thus hence moreover furthermore nevertheless nonetheless otherwise instead
indeed perhaps maybe certainly surely truly really actually especially particularly mainly
mostly largely chiefly partly fully entirely completely wholly simply merely clearly plainly
directly immediately suddenly slowly quickly gradually finally eventually afterwards meanwhile
formerly previously recently lately today tonight tomorrow yesterday forth forward backward upward
downward inside outside within without beneath beside besides beyond behind below above across
along amid amidst among around against toward towards upon onto unto till until unless whereas
whereby wherein whether while whilst though although because since lest nor yet thee thou thy
thine ye hath doth shalt unto whence thither hither
age ages era eras event events incident incidents affair affairs circumstance circumstances
condition conditions situation state states matter matters issue issues case cases problem
example examples instance instances kind kinds sort sorts type types manner manners method
methods way ways means purpose purposes aim aims goal goals end ends cause causes effect effects
result results consequence consequences reason reasons ground grounds basis principle principles
rule element elements part parts portion share whole sum total amount quantity number numbers
measure measures weight length size shape form forms figure figures image images picture pictures
color colors sound sounds voice voices noise silence music song songs dance festival feast
custom customs habit habits practice practices ritual rituals ceremony ceremonies celebration
marriage wedding funeral grave graves tomb tombs shrine shrines cemetery monument monuments
ruins remains relic relics treasure treasures coin coins wealth poverty tax taxes tribute price
prices cost costs payment debt debts loan profit loss property land lands estate estates field
house houses room rooms hall halls chamber chambers door doors window windows roof floor stairs
courtyard fountain well wells bath baths kitchen table tables chair bed lamp lamps candle candles
pen pens ink paper parchment scroll scrolls sheet sheets leaf leaves binding bound cover covers
hand feet foot head heads face faces eye ear ears mouth tongue lips teeth hair beard heart hearts
blood bone bones skin flesh breath health disease diseases illness cure remedy medicine physician
physicians hospital surgeon patient patients pain wound wounds plague famine drought flood floods
earthquake fire fires destruction ruin mind minds thought thoughts idea ideas memory memories
imagination dream dreams vision visions intellect intelligence will desire desires passion
passions emotion feeling feelings nature natural world worlds universe creation creator creature
creatures being beings existence essence substance matter form spirit body bodies self selves
person persons individual individuals human humans mankind humanity society societies community
communities family families household households parent parents ancestor ancestors descendant
descendants heir heirs child infant youth youths adult elder elders old age wisdom experience
skill skills art arts craft crafts trade trades work works labor worker workers profession
professions office offices duty duties task tasks role roles responsibility service services
institution institutions organization administration minister ministers governor governors
official officials judge magistrate police guard guards prison prisoner prisoners crime crimes
punishment punishments penalty sentence trial trials witness court verdict pardon
kitchen kitchens cellar cellars attic stable stables barn barns shed sheds fence fences hedge hedges
orchard orchards vineyard vineyards meadow meadows pasture pastures marsh marshes swamp swamps pond ponds
lake lakes stream streams brook spring springs waterfall cliff cliffs cave caves hill hills slope slopes
plain plains forest forests wood woods grove groves thicket bush bushes vine vines oak oaks pine pines
cedar cedars palm palms willow olive olives fig figs date dates grape grapes apple apples pear pears
lemon lemons orange oranges pomegranate pomegranates melon melons wheat barley rice corn grain grains
flour dough oven ovens loaf loaves cheese butter oil vinegar sugar pepper spice spices herb herbs
onion onions garlic bean beans lentil lentils pea peas nut nuts almond almonds cup cups bowl bowls plate
plates dish dishes jar jars jug jugs pot pots pan pans knife knives spoon spoons fork basket baskets
sack sacks box boxes chest chests barrel barrels rope ropes chain chains nail nails hammer hammers saw
axe axes spade plough ploughs sickle wheel wheels cart carts wagon wagons saddle saddles bridle
harness whip sword swords spear spears bow bows arrow arrows shield shields helmet armor dagger daggers
banner banners flag flags drum drums trumpet trumpets tent tents camp camps fortress fortresses castle
castles citadel moat trench trenches mine mines quarry harbor harbors port ports dock anchor sail sails
oar oars mast deck cargo voyage voyages sailor sailors captain captains pirate pirates fleet fleets
storm storms wave waves tide tides current currents shore shores beach bay gulf strait cape peninsula
continent continents province provinces region regions district districts county counties capital
capitals suburb suburbs street streets lane lanes square squares alley quarter quarters neighborhood
neighbor neighbors citizen citizens resident residents inhabitant inhabitants native natives foreigner
foreigners immigrant immigrants refugee refugees exile exiles colony colonies border borders frontier
mayor mayors council councils senate senator senators parliament assembly election elections vote votes
voter voters candidate candidates campaign campaigns party parties leader leaders follower followers
member rebel rebels revolution revolutions reform reforms policy policies program programs project
projects budget budgets tax revenue revenues treasury bank banks banker bankers loan loans interest
market merchant shop shops shopkeeper customer customers goods product products factory factories
machine machines engine engines tool tools device devices invention inventions inventor inventors
engineer engineers architect architects builder builders mason masons carpenter carpenters smith
smiths weaver weavers tailor tailors potter potters baker bakers butcher butchers miller millers
fisherman fishermen hunter hunters farmer peasant peasants laborer laborers servant maid maids cook
cooks nurse nurses doctor doctors lawyer lawyers clerk clerks scribe scribes secretary secretaries
scientist scientists physicist chemist chemists astronomer astronomers mathematician mathematicians
geometry algebra arithmetic astronomy chemistry physics biology geography history historian historians
economics economy politics politician politicians diplomat diplomats ambassador ambassadors embassy
envoy envoys messenger messengers letter courier post journey pilgrimage road highway railway station
stations train trains carriage carriages coach coaches horseman horsemen rider riders traveler
newspaper newspapers magazine magazines journal journals article articles essay essays novel novels
novelist novelists poet playwright play plays theater theaters actor actors audience audiences stage
painting paintings painter painters sculpture sculptures sculptor statue statues portrait portraits
museum museums gallery galleries exhibition collection archive archives record records document
documents diary diaries memoir memoirs autobiography lecture lectures lecturer professor
professors student students classroom classrooms examination examinations degree degrees diploma
university universities college colleges academy academies institute seminary curriculum textbook
textbooks dictionary dictionaries encyclopedia grammar vocabulary alphabet letters syllable syllables
verb verbs noun nouns adjective adjectives pronoun pronouns clause clauses accent dialect dialects
translation translations translator translators interpreter interpreters commentator commentators
jurisprudence theologian theologians mystic mystics mysticism saint saints hermit hermits monk monks
priest priests bishop bishops rabbi rabbis imam imams preacher preachers sermon sermons fast feast
feasts holiday holidays sabbath calendar calendars almanac eclipse eclipses comet comets planet planets
orbit orbits telescope compass map maps chart charts globe atlas latitude longitude degree horizon
equator north pole mountain peak peaks summit ridge ridges canyon dune dunes oasis oases well
illness fever fevers cough wound healing cure cures remedy remedies herbalist pharmacy drug drugs
poison poisons surgery operation operations recovery recovered recovering suffering suffered suffers
walking talking writing reading speaking thinking working living dying fighting building making
taking giving coming going seeing hearing knowing teaching learning praying fasting traveling ruling
opened opening opens closing closes burned burning burns broke breaking breaks built builds planted
planting plants sowed sowing reaped reaping harvested harvesting gathered gathering gathers counted
counting counts measured measuring weighed weighing sold selling sells bought buying buys paid paying
pays owed owing borrowed borrowing lent lending saved saving saves spent spending spends wasted
wasting earned earning earns hired hiring worked working works labored laboring rested resting rests
slept sleeping sleeps woke waking wakes dreamed dreaming dreams ate eating eats drank drinking drinks
cooked cooking cooks baked baking bakes washed washing washes cleaned cleaning cleans dressed
dressing wore wearing wears sewed sewing wove weaving painted painting paints drew drawing draws
carved carving carves wrote writing copied copying copies signed signing signs sealed sealing
printed prints published publishing publishes translated translating translates explained explaining
argued arguing argues proved proving proves refuted refuting doubted doubting doubts trusted trusting
trusts promised promising promises warned warning warns advised advising advises urged urging urges
invited inviting invites welcomed welcoming welcomes thanked thanking thanks blamed blaming blames
praised praising praises honored honoring honors insulted insulting insults mocked mocking mocks
laughed laughing laughs wept weeping weeps smiled smiling smiles cried crying cries shouted shouting
shouts whispered whispering whispers sang singing sings danced dancing dances played playing plays
marched marching marches sailed sailing sails rode riding rides climbed climbing climbs crossed
crossing crosses wandered wandering wanders traveled traveling travels arrived arriving arrives
departed departing departs entered entering enters returned returning returns stayed staying stays
settled settling settles moved moving moves fled fleeing flees escaped escaping escapes hid hiding
hides sought seeking seeks found finding finds searched searching searches lost losing loses won
winning wins fought fighting fights defended defending defends attacked attacking attacks besieged
besieging conquered conquering conquers ruled ruling rules governed governing governs reigned
reigning reigns obeyed obeying obeys served serving serves commanded commanding commands appointed
appointing appoints dismissed dismissing dismisses chose choosing chooses elected electing elects
judged judging judges punished punishing punishes pardoned pardoning pardons freed freeing frees
captured capturing captures imprisoned imprisoning released releasing releases killed killing kills
buried burying buries mourned mourning mourns married marrying marries divorced raised raising raises
fed feeding feeds taught teaching teaches studied studying studies memorized memorizing recited
reciting recites prayed praying prays worshipped worshipping blessed blessing blesses forgave
forgiving forgives repented repenting repents believed believing believes hoped hoping hopes feared
fearing fears loved loving loves hated hating hates wished wishing wishes wanted wanting wants
needed needing needs asked asking asks answered answering answers told telling tells said saying
spoke speaking speaks heard hearing hears listened listening listens saw seeing sees watched watching
watches looked looking looks noticed noticing notices remembered remembering remembers forgot
forgetting forgets understood understanding understands knew knowing knows thought thinking thinks
beautiful lovely pleasant charming graceful elegant splendid magnificent glorious humble modest simple
plain rough smooth soft hard sharp blunt thick thin broad narrow tall tiny huge vast immense enormous
little petty minor major chief principal main central distant remote nearby local foreign strange
familiar ordinary usual unusual regular frequent constant steady sudden gradual slow swift rapid quick
early late ancient medieval modern recent current present former previous next following final
sacred profane pure impure clean dirty fresh stale ripe rotten sweet sour salty bitter bright dim pale
golden silver red blue green yellow white black brown gray purple crimson scarlet dark light heavy
loud quiet silent noisy calm wild tame fierce gentle cruel merciful generous greedy honest dishonest
faithful faithless loyal disloyal brave cowardly wise foolish clever stupid learned ignorant skillful
careful careless patient impatient grateful ungrateful proud humble happy unhappy joyful sorrowful
angry peaceful restless weary eager anxious curious jealous envious ashamed guilty innocent
`;

/** The most frequent words, most frequent first. */
export const englishHead: readonly string[] = words(head);
/** The other words, unranked. */
export const englishBody: readonly string[] = words(body);

/**
 * The syntactic class of each word, for the generator's model of sentences (syntax.ts): the closed
 * classes are listed here by hand, each word in the class of its most frequent use in prose (that
 * as a conjunction, like as a preposition, there as the subject of "there is", up and out as adverbs);
 * every other word is a content word (noun, verb, adjective or adverb: the lists do not tell them
 * apart, and many are more than one, such as work, light or rule).
 */
export type EnglishClass = 'determiner' | 'preposition' | 'pronoun' | 'conjunction' | 'auxiliary' | 'negation' | 'content';

const closedClasses: Record<Exclude<EnglishClass, 'content'>, string> = {
  determiner: `the a an this these those his their its my our your thy thine some any no every each all both either
neither many few several much such another whose`,
  preposition: `of to in for with by on from at into about over after before through between under during without
against upon toward towards within among across along around behind above below beneath beside besides beyond amid
amidst onto unto till per like`,
  pronoun: `it he they we who which what whatever whoever there me us them himself itself none something nothing
anything thee thou ye`,
  conjunction: `and or but so if when as that because while although though since than nor whether until unless
whereas whereby wherein lest whilst where whenever wherever how why`,
  auxiliary: `is was be are were been has have had would will can could may might must should shall do did does am
being having hath doth shalt cannot`,
  negation: `not never`,
};

const closedClass = new Map<string, EnglishClass>(
  (Object.entries(closedClasses) as [EnglishClass, string][]).flatMap(([c, text]) => words(text).map((w) => [w, c] as const)),
);

/** A word's syntactic class. */
export const englishClassOf = (word: string): EnglishClass => closedClass.get(word) ?? 'content';
